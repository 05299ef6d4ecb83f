// decompress_tail(): liblzma, libzstd and zlib stream decoders writing into a
// buffer of which only the last bytes are kept.
#include "io/decompress.hpp"
#include "io/decompress_impl.hpp"

#include <fmt/format.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <memory>
#include <utility>

namespace rdnafix::io {

namespace detail {

namespace {
// Moves the source's chunks into the decoder's input buffer.
template <class Refill> core::Result<bool> refill(Source &in, Refill &&set)
{
	auto c = in.next();
	if (!c)
		return c.error();
	set(*c);
	return !c->empty();
}
} // namespace

core::Result<Ended> zstd_stream(Source &src, Sink &out)
{
	std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx *)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
	if (!ctx)
		return core::Error{"zstd: cannot initialise the decoder"};
	ZSTD_inBuffer in{nullptr, 0, 0};
	bool more = true;
	char buf[kChunk];
	std::size_t last = 1;
	for (;;) {
		if (in.pos == in.size && more) {
			auto r = refill(src, [&](std::string_view c) { in = ZSTD_inBuffer{c.data(), c.size(), 0}; });
			if (!r)
				return r.error();
			more = *r;
		}
		const bool drained = !more && in.pos == in.size;
		if (drained && last == 0)
			break; // every frame complete
		ZSTD_outBuffer o{buf, sizeof buf, 0};
		last = ZSTD_decompressStream(ctx.get(), &o, &in);
		if (ZSTD_isError(last))
			return core::Error{fmt::format("zstd: corrupt data ({})", ZSTD_getErrorName(last))};
		if (o.pos && !out.add(buf, o.pos))
			return Ended::sink_stopped;
		if (drained && o.pos == 0)
			break; // no input left and no progress: the frame is incomplete
	}
	if (last != 0)
		return core::Error{"zstd: truncated data (the last frame is incomplete)"};
	return Ended::stream_end;
}

core::Result<Ended> zlib_stream(Source &src, Sink &out, int window_bits, const char *name)
{
	z_stream s{};
	if (inflateInit2(&s, window_bits) != Z_OK)
		return core::Error{fmt::format("{}: cannot initialise the decoder", name)};
	std::unique_ptr<z_stream, int (*)(z_stream *)> guard(&s, inflateEnd);
	const bool members = window_bits > MAX_WBITS;
	bool more = true;
	char buf[kChunk];
	for (;;) {
		if (s.avail_in == 0 && more) {
			auto r = refill(src, [&](std::string_view c) {
				s.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(c.data()));
				s.avail_in = static_cast<uInt>(c.size());
			});
			if (!r)
				return r.error();
			more = *r;
		}
		s.next_out = reinterpret_cast<Bytef *>(buf);
		s.avail_out = sizeof buf;
		int r = inflate(&s, Z_NO_FLUSH);
		if (sizeof buf - s.avail_out && !out.add(buf, sizeof buf - s.avail_out))
			return Ended::sink_stopped;
		if (r == Z_STREAM_END) {
			if (!members || (s.avail_in == 0 && !more))
				return Ended::stream_end;
			if (s.avail_in == 0) { // another gzip member may follow in the next chunk
				auto n = refill(src, [&](std::string_view c) {
					s.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(c.data()));
					s.avail_in = static_cast<uInt>(c.size());
				});
				if (!n)
					return n.error();
				more = *n;
				if (!more)
					return Ended::stream_end;
			}
			if (inflateReset(&s) != Z_OK) // another member follows
				return core::Error{fmt::format("{}: cannot read the next member", name)};
			continue;
		}
		if (r != Z_OK && r != Z_BUF_ERROR)
			return core::Error{
				fmt::format("{}: corrupt or truncated data ({})", name, s.msg ? s.msg : "zlib error")};
		if (s.avail_in == 0 && !more && s.avail_out != 0)
			return core::Error{fmt::format("{}: truncated data", name)};
	}
}

} // namespace detail

namespace {

using detail::kChunk;

// The whole input as one chunk.
class WholeSource : public detail::Source {
public:
	explicit WholeSource(std::string_view d) : d_(d) {}
	core::Result<std::string_view> next() override { return std::exchange(d_, std::string_view{}); }

private:
	std::string_view d_;
};

// Collects output, keeping the last `keep` bytes.
class TailSink : public detail::Sink {
public:
	TailSink(std::size_t keep, std::uint64_t max) : keep_(keep), max_(max) {}
	bool add(const char *p, std::size_t n) override
	{
		size_ += n;
		if (size_ > max_)
			return false;
		tail_.append(p, n);
		if (tail_.size() > 2 * keep_ + kChunk)
			tail_.erase(0, tail_.size() - keep_);
		return true;
	}
	Decompressed take()
	{
		if (tail_.size() > keep_)
			tail_.erase(0, tail_.size() - keep_);
		return {std::move(tail_), size_};
	}
	std::uint64_t max() const { return max_; }

private:
	std::size_t keep_;
	std::uint64_t max_;
	std::uint64_t size_ = 0;
	std::string tail_;
};

core::Error too_large(const char *fmt_name, std::uint64_t max)
{
	return core::Error{fmt::format("{}: decompressed size exceeds {} bytes", fmt_name, max)};
}

core::Result<Decompressed> xz(std::string_view data, TailSink &out)
{
	lzma_stream s = LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		return core::Error{"xz: cannot initialise the decoder"};
	std::unique_ptr<lzma_stream, void (*)(lzma_stream *)> guard(&s, lzma_end);
	s.next_in = reinterpret_cast<const std::uint8_t *>(data.data());
	s.avail_in = data.size();
	char buf[kChunk];
	for (;;) {
		s.next_out = reinterpret_cast<std::uint8_t *>(buf);
		s.avail_out = sizeof buf;
		lzma_ret r = lzma_code(&s, s.avail_in ? LZMA_RUN : LZMA_FINISH);
		if (!out.add(buf, sizeof buf - s.avail_out))
			return too_large("xz", out.max());
		if (r == LZMA_STREAM_END)
			return out.take();
		if (r != LZMA_OK)
			return core::Error{fmt::format("xz: corrupt or truncated data (liblzma error {})", int(r))};
	}
}

core::Result<Decompressed> finish(core::Result<detail::Ended> r, TailSink &out, const char *name)
{
	if (!r)
		return r.error();
	if (*r == detail::Ended::sink_stopped)
		return too_large(name, out.max());
	return out.take();
}

} // namespace

Compression compression_of(std::string_view d)
{
	if (d.size() >= 6 && d.substr(0, 6) == std::string_view("\xFD"
								"7zXZ\0",
								6))
		return Compression::xz;
	if (d.size() >= 4 && d.substr(0, 4) == "\x28\xB5\x2F\xFD")
		return Compression::zstd;
	if (d.size() >= 2 && d.substr(0, 2) == "\x1F\x8B")
		return Compression::gzip;
	return Compression::none;
}

std::string_view to_string(Compression c)
{
	switch (c) {
	case Compression::none:
		return "none";
	case Compression::xz:
		return "xz";
	case Compression::zstd:
		return "zstd";
	case Compression::gzip:
		return "gzip";
	}
	return "none";
}

core::Result<Decompressed> decompress_tail(std::string_view data, std::size_t keep_tail, std::uint64_t max_size)
{
	TailSink out(keep_tail, max_size);
	WholeSource in(data);
	switch (compression_of(data)) {
	case Compression::xz:
		return xz(data, out);
	case Compression::zstd:
		return finish(detail::zstd_stream(in, out), out, "zstd");
	case Compression::gzip:
		return finish(detail::zlib_stream(in, out, 16 + MAX_WBITS, "gzip"), out, "gzip");
	case Compression::none:
		break;
	}
	out.add(data.data(), data.size());
	return out.take();
}

} // namespace rdnafix::io
