// Walks the offload bundles of one byte range: plain bundles read in place
// (header, entry table, 64 bytes of each code object), compressed ones
// inflated as a prefix only as far as the entry table and the code objects'
// headers (clang/docs/ClangOffloadBundler.rst; docs/rocm-facts.md §4).
#include "core/codeobj_bytes.hpp"
#include "software/read_fatbin_walk.hpp"
#include "io/decompress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

namespace rdnafix::coverage::detail {

namespace co = core::codeobj;

namespace {

constexpr std::uint64_t kAlign = 4096;       // .hip_fatbin section alignment (hipcc, ld)
constexpr std::uint64_t kFirstRead = 4096;   // header + a typical entry table
constexpr std::uint64_t kSearch = 64 * 1024; // bytes searched for the next bundle when not aligned
constexpr std::uint64_t kMaxIdLength = 1024;

std::uint64_t align_up(std::uint64_t v)
{
	return v > UINT64_MAX - (kAlign - 1) ? UINT64_MAX : (v + kAlign - 1) / kAlign * kAlign;
}

// Byte source of a bundle: the file (plain) or an inflated prefix (CCOB).
// get(off, len) returns fewer than len bytes only at the bundle's end.
using Getter = std::function<core::Result<std::string>(std::uint64_t off, std::uint64_t len)>;
// Told, once the table is read, which spans `get` will be asked for (the
// code-object headers), so that a CCOB is inflated once for all of them.
using Prefetch = std::function<void(const std::vector<io::Span> &)>;

// Entry table + per-entry headers through `get`.
void read_table(const Getter &get, const Prefetch &prefetch, std::uint64_t max_size, const ReadLimits &lim,
		FatbinBundle &b)
{
	co::BundleLimits bl;
	bl.max_entries = lim.max_entries;
	bl.max_id_length = kMaxIdLength;
	bl.max_size = max_size;
	auto head = get(0, std::min(kFirstRead, max_size));
	if (!head) {
		b.unreadable = head.error().message;
		return;
	}
	std::string table = std::move(head).value();
	// bundle_table_size only looks one entry ahead of what it was given: a
	// table longer than the first read (80 entries of ~60 bytes) takes more
	// reads, each twice the last so that a CCOB is inflated a few times only.
	for (auto need = co::bundle_table_size(table, bl); need && *need > table.size();
	     need = co::bundle_table_size(table, bl)) {
		if (*need > max_size) {
			b.unreadable =
				fmt::format("the entry table ({} bytes) runs past the end of the bundle ({} bytes)",
					    *need, max_size);
			return;
		}
		auto more = get(0, std::min(max_size, std::max<std::uint64_t>(*need, 2 * table.size())));
		if (!more) {
			b.unreadable = more.error().message;
			return;
		}
		if (more->size() <= table.size())
			break; // no more bytes: parse_bundle_table says what is truncated
		table = std::move(more).value();
	}
	auto parsed = co::parse_bundle_table(table, bl);
	if (!parsed) {
		b.unreadable = parsed.error().message;
		return;
	}
	co::BundleTable t = std::move(parsed).value();
	if (b.format == BundleFormat::plain) {
		b.stored_size = t.end;
		b.uncompressed_size = t.end;
	}
	if (prefetch) {
		std::vector<io::Span> spans;
		for (const co::BundleEntryRaw &raw : t.entries)
			if (raw.size > 0)
				spans.push_back({raw.offset, std::min<std::uint64_t>(raw.size, co::kElf64HeaderSize)});
		prefetch(spans);
	}
	for (co::BundleEntryRaw &raw : t.entries) {
		FatbinEntry e;
		e.offset = raw.offset;
		e.size = raw.size;
		auto id = co::parse_entry_id(raw.id);
		if (id) {
			e.id = std::move(id).value();
		} else {
			e.id.raw = raw.id;
			e.disagreement = id.error().message;
		}
		if (id && e.id.is_amdgcn() && e.size > 0) {
			auto h = get(e.offset, std::min<std::uint64_t>(e.size, co::kElf64HeaderSize));
			if (!h)
				e.disagreement = fmt::format("code object header not read: {}", h.error().message);
			else
				check_entry(e, *h);
		}
		b.entries.push_back(std::move(e));
	}
}

void read_plain(io::FileReader &r, std::uint64_t at, std::uint64_t max_size, const ReadLimits &lim, FatbinBundle &b)
{
	Getter get = [&](std::uint64_t off, std::uint64_t len) -> core::Result<std::string> {
		if (off > max_size)
			return core::Error{fmt::format("offset {} is past the bundle's end", off)};
		auto d = r.read_at(at + off, std::min(len, max_size - off));
		if (!d)
			return core::Error{d.error().reason()};
		return std::move(d).value();
	};
	read_table(get, nullptr, max_size, lim, b);
}

// Inflates the payload of the CCOB bundle at `at`, keeping the spans.
core::Result<io::Windows> inflate(io::FileReader &r, std::uint64_t at, const co::CcobHeader &h, std::uint64_t stored,
				  std::vector<io::Span> spans, std::uint64_t cap, io::InflateBudget &budget)
{
	std::uint64_t pos = at + h.header_size;
	const std::uint64_t end = at + stored;
	std::string chunk;
	io::ChunkSource next = [&]() -> core::Result<std::string_view> {
		if (pos >= end)
			return std::string_view{};
		auto d = r.read_at(pos, std::min<std::uint64_t>(end - pos, 64 * 1024));
		if (!d)
			return core::Error{d.error().reason()};
		chunk = std::move(d).value();
		pos += chunk.size();
		if (chunk.empty())
			pos = end;
		return std::string_view(chunk);
	};
	return io::inflate_windows(h.method == 1 ? io::Codec::zstd : io::Codec::zlib, next, std::move(spans),
				   h.uncompressed_size, cap, &budget);
}

void read_ccob(io::FileReader &r, std::uint64_t at, std::uint64_t max_size, std::string_view head,
	       const ReadLimits &lim, io::InflateBudget &budget, FatbinBundle &b)
{
	auto h = co::parse_ccob_header(head);
	if (!h) {
		b.unreadable = h.error().message;
		return;
	}
	b.format = BundleFormat::ccob;
	b.ccob_version = h->version;
	b.compression = std::string(h->method_name());
	b.uncompressed_size = h->uncompressed_size;
	// v1 stores no size: the bundle is taken to run to the end of the range.
	std::uint64_t stored = h->version >= 2 ? h->total_size : max_size;
	b.stored_size = stored;
	if (stored > max_size) {
		b.unreadable =
			fmt::format("compressed bundle of {} bytes runs past the end of its container ({} bytes)",
				    stored, max_size);
		return;
	}
	// Inflate once for the table (again at twice the length for a longer
	// one), then once for all the code-object headers, keeping only them.
	io::Prefix p;
	bool have = false;
	std::optional<core::Error> failed;
	std::map<std::uint64_t, std::string> headers; // offset in the payload -> its bytes
	Prefetch prefetch = [&](const std::vector<io::Span> &all) {
		std::vector<io::Span> spans; // those inside the inflate limit, not in the prefix already
		for (const io::Span &s : all)
			if (s.offset + s.length <= lim.max_inflate && s.offset + s.length > p.data.size())
				spans.push_back(s);
		if (spans.empty() || failed)
			return;
		auto w = inflate(r, at, *h, stored, spans, lim.max_inflate, budget);
		if (!w) {
			failed = w.error();
			return;
		}
		for (std::size_t i = 0; i < spans.size(); ++i)
			headers[spans[i].offset] = std::move(w->data[i]);
	};
	Getter get = [&](std::uint64_t off, std::uint64_t len) -> core::Result<std::string> {
		std::uint64_t want = std::min(off + len, h->uncompressed_size);
		if (off > h->uncompressed_size)
			return core::Error{
				fmt::format("offset {} is past the {}-byte payload", off, h->uncompressed_size)};
		if (want > lim.max_inflate)
			return core::Error{
				fmt::format("it lies beyond the first {} bytes of the payload, the inflate limit",
					    lim.max_inflate)};
		if (auto it = headers.find(off);
		    it != headers.end() &&
		    (it->second.size() >= len || off + it->second.size() >= h->uncompressed_size))
			return it->second.substr(0, len);
		if (failed && p.data.size() < want)
			return *failed; // never inflate a broken stream twice
		if (!have || (p.data.size() < want && !p.whole)) {
			// Ask for a little more than needed so that the entry headers
			// that follow the table come in the same pass.
			std::uint64_t ask = std::min({std::max({want, 2 * std::uint64_t(p.data.size()), kFirstRead}),
						      h->uncompressed_size, lim.max_inflate});
			auto q = inflate(r, at, *h, stored, {io::Span{0, ask}}, lim.max_inflate, budget);
			if (!q) {
				failed = q.error();
				return q.error();
			}
			p.data = std::move(q->data[0]);
			p.whole = q->whole;
			have = true;
		}
		if (off >= p.data.size())
			return std::string();
		return p.data.substr(off, std::min(len, p.data.size() - off));
	};
	read_table(get, prefetch, h->uncompressed_size, lim, b);
}

// The offset (from `from`) of the first bundle magic in [from, from + kSearch).
std::optional<std::uint64_t> search_next(io::FileReader &r, std::uint64_t start, std::uint64_t from, std::uint64_t len)
{
	if (from >= len)
		return std::nullopt;
	auto d = r.read_at(start + from, std::min(kSearch, len - from));
	if (!d)
		return std::nullopt;
	std::size_t a = d->find(co::kBundleMagic);
	std::size_t c = d->find(co::kCcobMagic);
	std::size_t k = std::min(a, c);
	if (k == std::string::npos)
		return std::nullopt;
	return from + k;
}

} // namespace

void check_entry(FatbinEntry &e, std::string_view header)
{
	auto t = co::decode_amdgpu_elf_header(header);
	if (!t) {
		e.disagreement = fmt::format("code object header unreadable: {}", t.error().message);
		return;
	}
	e.elf = std::move(t).value();
	if (e.id.target && e.id.target->canonical() != e.elf->target.canonical())
		e.disagreement = fmt::format("entry says {}, e_flags say {} (0x{:08x})", e.id.target->canonical(),
					     e.elf->target.canonical(), e.elf->e_flags);
}

std::vector<FatbinBundle> walk_bundles(io::FileReader &r, std::uint64_t start, std::uint64_t len, const ReadLimits &lim,
				       io::InflateBudget &budget)
{
	std::vector<FatbinBundle> out;
	std::uint64_t pos = 0;
	while (pos < len) {
		FatbinBundle b;
		b.file_offset = start + pos;
		if (out.size() >= lim.max_bundles) {
			b.unreadable = fmt::format("more than {} bundles; the rest is not read", lim.max_bundles);
			out.push_back(std::move(b));
			break;
		}
		auto head = r.read_at(start + pos, std::min<std::uint64_t>(co::kCcobMaxHeader, len - pos));
		if (!head) {
			b.unreadable = head.error().reason();
			out.push_back(std::move(b));
			break;
		}
		std::uint64_t next = len;
		if (head->starts_with(co::kBundleMagic)) {
			read_plain(r, start + pos, len - pos, lim, b);
			if (b.unreadable.empty())
				next = pos + b.stored_size;
		} else if (head->starts_with(co::kCcobMagic)) {
			read_ccob(r, start + pos, len - pos, *head, lim, budget, b);
			if (b.unreadable.empty() && b.ccob_version >= 2)
				next = pos + b.stored_size;
		} else {
			b.unreadable = "no offload-bundle magic (__CLANG_OFFLOAD_BUNDLE__ or CCOB) at this offset";
		}
		const bool ok = b.unreadable.empty();
		out.push_back(std::move(b));
		if (!ok || next >= len)
			break;
		// The next bundle: at the next 4096-byte boundary (what the linker
		// produces), else the first magic in the following 64 KiB.
		std::uint64_t aligned = align_up(start + next) - start;
		auto probe = aligned < len ? r.read_at(start + aligned, co::kCcobMaxHeader)
					   : io::FsResult<std::string>(std::string());
		if (probe && (probe->starts_with(co::kBundleMagic) || probe->starts_with(co::kCcobMagic))) {
			pos = aligned;
			continue;
		}
		auto found = search_next(r, start, next, len);
		if (!found)
			break; // padding to the end of the range
		pos = *found;
	}
	return out;
}

} // namespace rdnafix::coverage::detail
