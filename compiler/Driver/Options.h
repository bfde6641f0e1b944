//===- Options.h - helpers for `kiln compile`'s option values -------*- C++ -*-===//
#ifndef KILN_COMPILER_DRIVER_OPTIONS_H
#define KILN_COMPILER_DRIVER_OPTIONS_H

#include <string>

namespace kiln::driver {

/// What a tensor name looks like, for messages about a bad one.
std::string tensorNameHint();

} // namespace kiln::driver

#endif // KILN_COMPILER_DRIVER_OPTIONS_H
