//===- InitAll.h - dialects and passes every Kiln tool knows ---------*- C++ -*-===//
#ifndef KILN_COMPILER_INIT_INITALL_H
#define KILN_COMPILER_INIT_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace kiln {

/// Kiln's dialects, every upstream dialect and their extensions and interface models.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Kiln's passes and pipelines and every upstream pass, for kiln-opt.
void registerAllPasses();

} // namespace kiln

#endif // KILN_COMPILER_INIT_INITALL_H
