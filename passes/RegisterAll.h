//===- RegisterAll.h - register every Kiln pass ----------------------*- C++ -*-===//
#ifndef KILN_PASSES_REGISTERALL_H
#define KILN_PASSES_REGISTERALL_H

namespace kiln {

/// Registers all Kiln passes and pass pipelines with the global registry (for kiln-opt).
void registerAllKilnPasses();

} // namespace kiln

#endif // KILN_PASSES_REGISTERALL_H
