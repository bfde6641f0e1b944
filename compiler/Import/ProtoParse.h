//===- ProtoParse.h - reading protobuf files (internal) --------------*- C++ -*-===//
#ifndef KILN_COMPILER_IMPORT_PROTOPARSE_H
#define KILN_COMPILER_IMPORT_PROTOPARSE_H

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

#include <google/protobuf/message.h>

namespace kiln::import {

/// Reads the file at `path` whole: it must be a regular file (not a directory, a device
/// such as /dev/zero, or a pipe) of at most 2 GiB, protobuf's limit on a message. `what`
/// names it in errors ("the graph", "the config"), which go to `context` at the file.
std::unique_ptr<llvm::MemoryBuffer> readInputFile(llvm::StringRef path, llvm::StringRef what,
                                                  mlir::MLIRContext *context);

/// Parses `bytes` as a binary message, or as text when `text` is set or the bytes look
/// like text and are not valid binary. `what` names the message in errors.
/// `partialSchema`: Kiln's .proto leaves out fields of TensorFlow's (the SavedModel's), so
/// text naming fields it does not know is accepted (binary always is).
llvm::LogicalResult parseProto(llvm::StringRef bytes, llvm::StringRef fileName, bool text,
                               llvm::StringRef what, google::protobuf::Message &message,
                               mlir::MLIRContext *context, bool partialSchema = false);

} // namespace kiln::import

#endif // KILN_COMPILER_IMPORT_PROTOPARSE_H
