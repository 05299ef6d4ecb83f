#include "code_object.hpp"

#include <algorithm>
#include <cstring>
#include <set>

namespace rdnafix::gpu {
namespace {

template <typename T> bool rd(const std::vector<std::uint8_t> &b, std::uint64_t off, T &out)
{
	if (off > b.size() || b.size() - off < sizeof(T))
		return false;
	std::memcpy(&out, b.data() + off, sizeof(T));
	return true;
}

bool is_elf64le(const std::vector<std::uint8_t> &b)
{
	return b.size() >= 64 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F' && b[4] == 2 && b[5] == 1;
}

} // namespace

int elf_machine(const std::vector<std::uint8_t> &code)
{
	std::uint16_t m = 0;
	if (!is_elf64le(code) || !rd(code, 18, m))
		return -1;
	return m;
}

std::vector<std::string> elf_symbols(const std::vector<std::uint8_t> &b)
{
	std::vector<std::string> out;
	if (!is_elf64le(b))
		return out;
	std::uint64_t shoff = 0;
	std::uint16_t shentsize = 0, shnum = 0;
	if (!rd(b, 0x28, shoff) || !rd(b, 0x3a, shentsize) || !rd(b, 0x3c, shnum) || shentsize < 64)
		return out;
	auto sh = [&](unsigned i, unsigned field_off, auto &v) {
		return rd(b, shoff + std::uint64_t(i) * shentsize + field_off, v);
	};
	for (unsigned i = 0; i < shnum; ++i) {
		std::uint32_t type = 0, link = 0;
		std::uint64_t off = 0, size = 0, entsize = 0;
		if (!sh(i, 4, type) || (type != 2 && type != 11)) // SHT_SYMTAB, SHT_DYNSYM
			continue;
		if (!sh(i, 0x18, off) || !sh(i, 0x20, size) || !sh(i, 0x28, link) || !sh(i, 0x38, entsize))
			return {};
		if (entsize < 24 || link >= shnum)
			return {};
		std::uint64_t stroff = 0, strsize = 0;
		if (!sh(link, 0x18, stroff) || !sh(link, 0x20, strsize) || stroff > b.size() ||
		    b.size() - stroff < strsize)
			return {};
		for (std::uint64_t e = 0; e + entsize <= size; e += entsize) {
			std::uint32_t name = 0;
			if (!rd(b, off + e, name))
				return {};
			if (name == 0 || name >= strsize)
				continue;
			const char *s = reinterpret_cast<const char *>(b.data() + stroff + name);
			out.emplace_back(s, strnlen(s, strsize - name));
		}
	}
	return out;
}

std::string check_code_object(Api api, const std::vector<std::uint8_t> &code, const std::vector<std::string> &kernels)
{
	int m = elf_machine(code);
	if (m < 0)
		return "not an ELF64 image (" + std::to_string(code.size()) + " bytes)";
	int want = api == Api::hip ? kEmAmdgpu : kEmCuda;
	if (m != want)
		return "ELF machine " + std::to_string(m) + ", expected " + std::to_string(want);
	auto syms = elf_symbols(code);
	std::set<std::string> have(syms.begin(), syms.end());
	for (const auto &k : kernels)
		if (!have.count(k))
			return "kernel '" + k + "' missing from the code object";
	return "";
}

} // namespace rdnafix::gpu
