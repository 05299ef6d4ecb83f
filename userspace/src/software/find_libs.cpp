// The library files that can carry device code (one table, with why), and
// the libraries of one installation directory.
#include "software/find.hpp"

#include "software/libdirs.hpp"

#include "io/rootfs.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rdnafix::coverage::detail {

const std::vector<DeviceCodeLib> &device_code_libs()
{
	// Only these files are opened: a ROCm install has hundreds of .so files,
	// most of them host-only (the runtime, wrappers such as hipBLAS/hipSPARSE,
	// SMI, tracers).  Each row carries kernels compiled into .hip_fatbin.
	static const std::vector<DeviceCodeLib> t{
		{"libtorch_hip", false, "PyTorch's own GPU operators (ATen kernels)"},
		{"librocblas", false, "rocBLAS non-Tensile kernels (the Tensile ones are in rocblas/library)"},
		{"libhipblaslt", false, "hipBLASLt extension kernels (GEMMs are in hipblaslt/library)"},
		{"libMIOpen", true, "MIOpen convolution / normalisation kernels (libMIOpenCK*_<gfx>.so per target)"},
		{"librocsparse", false, "rocSPARSE kernels"},
		{"libhipsparselt", false, "hipSPARSELt kernels"},
		{"librocfft", false, "rocFFT kernels"},
		{"libhipfft", false, "hipFFT (a wrapper; some builds carry kernels)"},
		{"librocsolver", false, "rocSOLVER kernels (torch.linalg)"},
		{"librocrand", false, "rocRAND generators"},
		{"librccl", false, "RCCL collective kernels"},
		{"libmagma", false, "MAGMA linear-algebra kernels (PyTorch wheels)"},
		{"libggml-hip", false, "the GGML HIP backend of llama.cpp / ollama"},
	};
	return t;
}

const DeviceCodeLib *device_code_lib(std::string_view n)
{
	for (const auto &row : device_code_libs()) {
		if (!n.starts_with(row.stem))
			continue;
		std::string_view rest = n.substr(row.stem.size());
		auto so = rest.find(".so");
		if (so == std::string_view::npos)
			continue;
		std::string_view mid = rest.substr(0, so), tail = rest.substr(so + 3);
		if (!mid.empty() && !row.variants)
			continue;
		if (!std::all_of(mid.begin(), mid.end(), [](char c) {
			    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
		    }))
			continue;
		// ".so" or ".so.4" / ".so.4.4.0"
		if (!tail.empty() && (tail[0] != '.' || !std::all_of(tail.begin(), tail.end(), [](char c) {
					      return c == '.' || (c >= '0' && c <= '9');
				      })))
			continue;
		return &row;
	}
	return nullptr;
}

std::string rel_of(std::string_view abs)
{
	// Lexically, as RootFs resolves it: "." dropped, ".." stops at the root.
	std::vector<std::string_view> parts;
	std::size_t b = 0;
	while (b <= abs.size()) {
		auto e = abs.find('/', b);
		if (e == std::string_view::npos)
			e = abs.size();
		std::string_view c = abs.substr(b, e - b);
		if (c == "..") {
			if (!parts.empty())
				parts.pop_back();
		} else if (!c.empty() && c != ".")
			parts.push_back(c);
		b = e + 1;
	}
	std::string out;
	for (auto c : parts)
		out += (out.empty() ? "" : "/") + std::string(c);
	return out;
}

std::string join(std::string_view a, std::string_view b)
{
	if (a.empty())
		return std::string(b);
	if (b.empty())
		return std::string(a);
	return std::string(a) + "/" + std::string(b);
}

std::string dirname_of(std::string_view rel)
{
	auto p = rel.rfind('/');
	return p == std::string_view::npos ? std::string() : std::string(rel.substr(0, p));
}

std::string basename_of(std::string_view rel)
{
	auto p = rel.rfind('/');
	return std::string(p == std::string_view::npos ? rel : rel.substr(p + 1));
}

std::optional<std::string> regular_candidate(io::RootFs &fs, Found &f, const std::string &rel)
{
	auto skip = [&](const std::string &why) {
		f.notes.push_back("/" + rel + ": skipped: " + why);
		return std::nullopt;
	};
	auto canon = fs.canonical(rel);
	if (!canon) {
		const io::FsError &e = canon.error();
		if (e.kind == io::FsErrorKind::symlink_loop)
			return skip("a symlink loop (ELOOP)");
		if (e.kind == io::FsErrorKind::not_found)
			return skip("a dangling symlink (its target does not exist)");
		return skip(e.reason());
	}
	auto st = fs.stat(*canon);
	if (!st)
		return skip(st.error().reason());
	if (st->type == io::FileType::regular)
		return std::move(canon).value();
	if (st->type == io::FileType::directory)
		return skip("a directory, not a library file");
	return skip(fmt::format("{}, not a regular file (not opened)", file_type_phrase(st->type)));
}

std::string_view file_type_phrase(core::FileType t)
{
	switch (t) {
	case io::FileType::regular:
		return "a regular file";
	case io::FileType::directory:
		return "a directory";
	case io::FileType::symlink:
		return "a symlink";
	case io::FileType::char_device:
		return "a character device node";
	case io::FileType::block_device:
		return "a block device node";
	case io::FileType::fifo:
		return "a FIFO";
	case io::FileType::socket:
		return "a socket";
	case io::FileType::other:
		break;
	}
	return "a special file";
}

std::vector<Library> libraries_in(io::RootFs &fs, Found &f, const std::string &dir,
				  const std::vector<std::string_view> &skip)
{
	std::vector<Library> out;
	auto names = fs.list_dir(dir);
	if (!names)
		return out;
	for (const auto &n : *names) {
		const DeviceCodeLib *row = device_code_lib(n);
		if (!row || std::find(skip.begin(), skip.end(), row->stem) != skip.end())
			continue;
		auto canon = regular_candidate(fs, f, join(dir, n));
		if (!canon || f.seen[*canon])
			continue;
		f.seen[*canon] = true;
		Library l;
		l.name = basename_of(*canon);
		l.path = *canon;
		l.kind = LibraryKind::fatbin;
		out.push_back(std::move(l));
	}
	std::sort(out.begin(), out.end(), [](const Library &a, const Library &b) { return a.name < b.name; });
	return out;
}

void add_data_dirs(io::RootFs &fs, Found &f, Install &inst, const std::string &lib_dir, const std::string &share_dir)
{
	auto take = [&](std::optional<Library> l) {
		if (!l)
			return;
		auto canon = fs.canonical(l->path);
		std::string key = canon ? *canon : l->path;
		if (f.seen[key])
			return;
		f.seen[key] = true;
		inst.libraries.push_back(std::move(*l));
	};
	take(read_tensile_dir(fs, join(lib_dir, "rocblas/library"), "rocBLAS Tensile library"));
	take(read_tensile_dir(fs, join(lib_dir, "hipblaslt/library"), "hipBLASLt Tensile library"));
	if (!share_dir.empty())
		take(read_miopen_dir(fs, join(share_dir, "miopen/db")));
}

} // namespace rdnafix::coverage::detail
