//===- SanitizerDefaults.cpp - ASan defaults for binaries that link MLIR -------===//
//
// Built with AddressSanitizer, LLVM's headers poison the unused tail of every
// BumpPtrAllocator slab they allocate (llvm/Support/Allocator.h, inlined into Kiln's
// instrumented code, e.g. an attribute's storage), while Debian's libLLVM and libMLIR,
// which allocate from the same slabs, are not instrumented and never unpoison what they
// take: ASan then reports use-after-poison inside MLIR (DenseIntOrFPElementsAttr::getRaw
// copying into its storage). Every binary that links MLIR links this file, which turns
// user poisoning off; heap, stack and global overflows are still caught.
//
//===----------------------------------------------------------------------------===//
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define KILN_ASAN 1
#endif

#ifdef KILN_ASAN
extern "C" __attribute__((visibility("default"), used)) const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}
#endif
