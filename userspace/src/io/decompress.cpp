// decompress_tail(): liblzma, libzstd and zlib stream decoders writing into a
// buffer of which only the last bytes are kept.
#include "io/decompress.hpp"

#include <fmt/format.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <memory>

namespace rdnafix::io {

namespace {

constexpr std::size_t kChunk = 64 * 1024;

// Collects output, keeping the last `keep` bytes.
class Sink {
public:
	Sink(std::size_t keep, std::uint64_t max) : keep_(keep), max_(max) {}
	bool add(const char *p, std::size_t n)
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

core::Result<Decompressed> xz(std::string_view data, Sink &out)
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

core::Result<Decompressed> zstd(std::string_view data, Sink &out)
{
	std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx *)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
	if (!ctx)
		return core::Error{"zstd: cannot initialise the decoder"};
	ZSTD_inBuffer in{data.data(), data.size(), 0};
	char buf[kChunk];
	std::size_t last = 1;
	while (in.pos < in.size) {
		ZSTD_outBuffer o{buf, sizeof buf, 0};
		last = ZSTD_decompressStream(ctx.get(), &o, &in);
		if (ZSTD_isError(last))
			return core::Error{fmt::format("zstd: corrupt data ({})", ZSTD_getErrorName(last))};
		if (!out.add(buf, o.pos))
			return too_large("zstd", out.max());
	}
	while (last != 0) { // the input is consumed: flush what the decoder still holds
		ZSTD_outBuffer o{buf, sizeof buf, 0};
		last = ZSTD_decompressStream(ctx.get(), &o, &in);
		if (ZSTD_isError(last))
			return core::Error{fmt::format("zstd: corrupt data ({})", ZSTD_getErrorName(last))};
		if (!out.add(buf, o.pos))
			return too_large("zstd", out.max());
		if (o.pos == 0)
			break; // no progress: the frame lacks input
	}
	if (last != 0)
		return core::Error{"zstd: truncated data (the last frame is incomplete)"};
	return out.take();
}

core::Result<Decompressed> gzip(std::string_view data, Sink &out)
{
	z_stream s{};
	if (inflateInit2(&s, 16 + MAX_WBITS) != Z_OK)
		return core::Error{"gzip: cannot initialise the decoder"};
	std::unique_ptr<z_stream, int (*)(z_stream *)> guard(&s, inflateEnd);
	s.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
	s.avail_in = static_cast<uInt>(data.size());
	char buf[kChunk];
	for (;;) {
		s.next_out = reinterpret_cast<Bytef *>(buf);
		s.avail_out = sizeof buf;
		int r = inflate(&s, Z_NO_FLUSH);
		if (!out.add(buf, sizeof buf - s.avail_out))
			return too_large("gzip", out.max());
		if (r == Z_STREAM_END) {
			if (s.avail_in == 0)
				return out.take();
			if (inflateReset(&s) != Z_OK) // another member follows
				return core::Error{"gzip: cannot read the next member"};
			continue;
		}
		if (r != Z_OK)
			return core::Error{
				fmt::format("gzip: corrupt or truncated data ({})", s.msg ? s.msg : "zlib error")};
		if (s.avail_in == 0 && s.avail_out != 0)
			return core::Error{"gzip: truncated data"};
	}
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
	Sink out(keep_tail, max_size);
	switch (compression_of(data)) {
	case Compression::xz:
		return xz(data, out);
	case Compression::zstd:
		return zstd(data, out);
	case Compression::gzip:
		return gzip(data, out);
	case Compression::none:
		break;
	}
	out.add(data.data(), data.size());
	return out.take();
}

} // namespace rdnafix::io
