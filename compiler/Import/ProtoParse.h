//===- ProtoParse.h - reading protobuf files (internal) --------------*- C++ -*-===//
#ifndef KILN_COMPILER_IMPORT_PROTOPARSE_H
#define KILN_COMPILER_IMPORT_PROTOPARSE_H

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"

#include <google/protobuf/message.h>

namespace kiln::import {

/// Parses `bytes` as a binary message, or as text when `text` is set or the bytes look
/// like text and are not valid binary. `what` names the message in errors.
llvm::LogicalResult parseProto(llvm::StringRef bytes, llvm::StringRef fileName, bool text,
                               llvm::StringRef what, google::protobuf::Message &message,
                               mlir::MLIRContext *context);

} // namespace kiln::import

#endif // KILN_COMPILER_IMPORT_PROTOPARSE_H
