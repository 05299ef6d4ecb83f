#pragma once
// Minimal, bounds-checked ELF64 reading of compiled code objects: magic,
// machine (EM_AMDGPU 224 for HIP, EM_CUDA 190 for CUDA) and symbol names.
#include <cstdint>
#include <string>
#include <vector>

#include "backend.hpp"

namespace rdnafix::gpu {

constexpr std::uint16_t kEmAmdgpu = 224;
constexpr std::uint16_t kEmCuda = 190;

// e_machine, or -1 if `code` is not a little-endian ELF64 image.
int elf_machine(const std::vector<std::uint8_t> &code);
// Names from .symtab and .dynsym; empty if the image is malformed.
std::vector<std::string> elf_symbols(const std::vector<std::uint8_t> &code);
// "" when `code` is an ELF of the right machine containing every kernel
// name, else the reason.
std::string check_code_object(Api api, const std::vector<std::uint8_t> &code, const std::vector<std::string> &kernels);

} // namespace rdnafix::gpu
