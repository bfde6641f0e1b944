//===- Constants.cpp - Large constants straight into the object file ----------===//
#include "codegen/Target/Constants.h"
#include "codegen/Target/Object.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SwapByteOrder.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <cstring>

using namespace mlir;

namespace kiln::codegen {

namespace {

/// Bytes of an LLVM-dialect array of numbers (nested arrays of integers or floats of whole
/// bytes), or 0 for any other type.
uint64_t arrayBytes(Type type) {
  if (auto array = dyn_cast<LLVM::LLVMArrayType>(type))
    return array.getNumElements() * arrayBytes(array.getElementType());
  if (isa<IntegerType, FloatType>(type) && type.getIntOrFloatBitWidth() % 8 == 0)
    return type.getIntOrFloatBitWidth() / 8;
  return 0;
}

} // namespace

std::vector<ObjectConstant> takeLargeConstants(ModuleOp module, StringRef prefix) {
  std::vector<ObjectConstant> taken;
  if (!llvm::sys::IsLittleEndianHost)
    return taken;
  llvm::StringMap<std::string> renamed;
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    auto value = dyn_cast_or_null<DenseElementsAttr>(global.getValueOrNull());
    if (!global.getConstant() || !value || value.isSplat() ||
        global.getInitializerRegion().getBlocks().size() != 0)
      continue;
    uint64_t bytes = arrayBytes(global.getGlobalType());
    Type element = value.getElementType();
    if (bytes < kMinObjectConstantBytes || !element.isIntOrFloat() ||
        element.getIntOrFloatBitWidth() % 8 != 0 || value.getRawData().size() != bytes)
      continue;
    std::string symbol = (prefix + global.getSymName()).str();
    renamed[global.getSymName()] = symbol;
    taken.push_back({symbol, value.getRawData(), global.getAlignment().value_or(1)});
    global.removeValueAttr();
    global.setLinkage(LLVM::Linkage::External);
    global.setVisibility_(LLVM::Visibility::Hidden);
    global.setDsoLocal(true);
    global.setSymName(symbol);
  }
  if (!renamed.empty())
    module.walk([&](LLVM::AddressOfOp address) {
      auto it = renamed.find(address.getGlobalName());
      if (it != renamed.end())
        address.setGlobalName(it->second);
    });
  return taken;
}

namespace {

using namespace llvm::ELF;

constexpr char kSectionName[] = ".rodata.kiln_constants";

template <typename T> T readAt(StringRef bytes, uint64_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

template <typename T> void writeAt(std::string &bytes, uint64_t offset, const T &value) {
  std::memcpy(bytes.data() + offset, &value, sizeof(T));
}

void pad(llvm::raw_ostream &os, uint64_t &offset, uint64_t alignment) {
  uint64_t aligned = llvm::alignTo(offset, alignment);
  os.write_zeros(aligned - offset);
  offset = aligned;
}

} // namespace

LogicalResult writeObjectWithConstants(StringRef object, ArrayRef<ObjectConstant> constants,
                                       llvm::raw_ostream &os, std::string &error) {
  if (constants.empty()) {
    os << object;
    return success();
  }
  auto bad = [&](const llvm::Twine &what) {
    error = ("cannot add the model's constants to the object file: " + what).str();
    return failure();
  };
  if (!llvm::sys::IsLittleEndianHost)
    return bad("big-endian host");
  if (object.size() < sizeof(Elf64_Ehdr) || !object.starts_with("\x7f"
                                                                "ELF"))
    return bad("not an ELF file");
  auto header = readAt<Elf64_Ehdr>(object, 0);
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB ||
      header.e_type != ET_REL || header.e_shentsize != sizeof(Elf64_Shdr))
    return bad("not a little-endian 64-bit relocatable ELF file");
  // One more section must keep a plain index (no extended numbering).
  if (header.e_shnum == 0 || header.e_shnum + 1 >= SHN_LORESERVE ||
      header.e_shstrndx >= header.e_shnum)
    return bad("unexpected section numbering");
  if (header.e_shoff + uint64_t(header.e_shnum) * sizeof(Elf64_Shdr) > object.size())
    return bad("section headers past the end of the file");
  std::vector<Elf64_Shdr> sections;
  for (unsigned i = 0; i < header.e_shnum; ++i)
    sections.push_back(readAt<Elf64_Shdr>(object, header.e_shoff + i * sizeof(Elf64_Shdr)));
  auto inFile = [&](const Elf64_Shdr &s) {
    return s.sh_type == SHT_NOBITS || s.sh_offset + s.sh_size <= object.size();
  };
  const Elf64_Shdr *symtab = nullptr;
  for (const Elf64_Shdr &s : sections) {
    if (!inFile(s))
      return bad("a section past the end of the file");
    if (s.sh_type == SHT_SYMTAB)
      symtab = &s;
  }
  if (!symtab || symtab->sh_entsize != sizeof(Elf64_Sym) || symtab->sh_link >= sections.size())
    return bad("no symbol table");
  const Elf64_Shdr &strtab = sections[symtab->sh_link];
  StringRef names = object.substr(strtab.sh_offset, strtab.sh_size);

  // The section's layout: each constant at its alignment, in the order given.
  uint64_t sectionAlign = 16, size = 0;
  std::vector<uint64_t> offsets;
  llvm::StringMap<unsigned> index;
  for (const ObjectConstant &c : constants) {
    uint64_t alignment = std::max<uint64_t>(c.alignment, 1);
    if (!llvm::isPowerOf2_64(alignment))
      return bad("alignment " + llvm::Twine(alignment) + " of '" + c.symbol + "'");
    sectionAlign = std::max(sectionAlign, alignment);
    size = llvm::alignTo(size, alignment);
    offsets.push_back(size);
    size += c.bytes.size();
    index[c.symbol] = offsets.size() - 1;
  }

  // Define the constants' symbols (undefined in the object) in the new section.
  std::string out = object.str();
  unsigned newSection = header.e_shnum;
  uint64_t symbolsEnd = symtab->sh_offset + symtab->sh_size;
  for (uint64_t at = symtab->sh_offset; at + sizeof(Elf64_Sym) <= symbolsEnd;
       at += sizeof(Elf64_Sym)) {
    auto symbol = readAt<Elf64_Sym>(object, at);
    if (symbol.st_shndx != SHN_UNDEF || symbol.st_name == 0 || symbol.st_name >= names.size())
      continue;
    StringRef name = names.substr(symbol.st_name);
    name = name.take_until([](char c) { return c == '\0'; });
    auto it = index.find(name);
    if (it == index.end())
      continue;
    symbol.st_shndx = newSection;
    symbol.st_value = offsets[it->second];
    symbol.st_size = constants[it->second].bytes.size();
    symbol.setBindingAndType(STB_GLOBAL, STT_OBJECT);
    symbol.st_other = (symbol.st_other & ~0x3) | STV_HIDDEN;
    writeAt(out, at, symbol);
  }

  // The file: the object as it was (its symbols defined), the constants, a new section-name
  // table (the old one and the new section's name), and the section headers, one more.
  uint64_t offset = out.size();
  uint64_t dataOffset = llvm::alignTo(offset, sectionAlign);
  const Elf64_Shdr &oldNames = sections[header.e_shstrndx];
  std::string sectionNames = object.substr(oldNames.sh_offset, oldNames.sh_size).str();
  uint32_t nameOffset = sectionNames.size();
  sectionNames.append(kSectionName, sizeof(kSectionName));
  uint64_t namesOffset = dataOffset + size;
  uint64_t headersOffset = llvm::alignTo(namesOffset + sectionNames.size(), 8);

  Elf64_Shdr added{};
  added.sh_name = nameOffset;
  added.sh_type = SHT_PROGBITS;
  added.sh_flags = SHF_ALLOC;
  added.sh_offset = dataOffset;
  added.sh_size = size;
  added.sh_addralign = sectionAlign;
  sections[header.e_shstrndx].sh_offset = namesOffset;
  sections[header.e_shstrndx].sh_size = sectionNames.size();
  sections.push_back(added);
  header.e_shoff = headersOffset;
  header.e_shnum = sections.size();
  writeAt(out, 0, header);

  os << out;
  pad(os, offset, sectionAlign);
  for (auto [c, at] : llvm::zip(constants, offsets)) {
    os.write_zeros(dataOffset + at - offset);
    os.write(c.bytes.data(), c.bytes.size());
    offset = dataOffset + at + c.bytes.size();
  }
  os << sectionNames;
  offset += sectionNames.size();
  pad(os, offset, 8);
  for (const Elf64_Shdr &s : sections)
    os.write(reinterpret_cast<const char *>(&s), sizeof(s));
  return success();
}

LogicalResult writeConstantsObject(ArrayRef<ObjectConstant> constants, llvm::TargetMachine &machine,
                                   llvm::raw_ostream &os, std::string &error) {
  llvm::LLVMContext context;
  llvm::Module module("kiln_constants", context);
  module.setTargetTriple(machine.getTargetTriple());
  module.setDataLayout(machine.createDataLayout());
  // A table of their addresses makes each constant an undefined symbol of the object.
  SmallVector<llvm::Constant *> addresses;
  for (const ObjectConstant &c : constants) {
    auto *global = new llvm::GlobalVariable(
        module, llvm::ArrayType::get(llvm::Type::getInt8Ty(context), c.bytes.size()),
        /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage, nullptr, c.symbol);
    global->setVisibility(llvm::GlobalValue::HiddenVisibility);
    global->setDSOLocal(true);
    addresses.push_back(global);
  }
  auto *type = llvm::ArrayType::get(llvm::PointerType::get(context, 0), addresses.size());
  auto *table = new llvm::GlobalVariable(
      module, type, /*isConstant=*/true, llvm::GlobalValue::InternalLinkage,
      llvm::ConstantArray::get(type, addresses), "kiln.constants");
  llvm::appendToCompilerUsed(module, {table});
  SmallVector<char, 0> object;
  llvm::raw_svector_ostream objectStream(object);
  if (failed(emitMachineCode(module, machine, objectStream, /*assembly=*/false, error)))
    return failure();
  return writeObjectWithConstants(StringRef(object.data(), object.size()), constants, os, error);
}

} // namespace kiln::codegen
