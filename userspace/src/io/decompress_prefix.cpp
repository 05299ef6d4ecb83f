// inflate_prefix(): the first bytes of a compressed offload bundle's payload
// with the shared zstd / zlib decoders (decompress_impl.hpp).
#include "io/decompress.hpp"
#include "io/decompress_impl.hpp"

#include <fmt/format.h>
#include <zlib.h>

namespace rdnafix::io {

namespace {

class FnSource : public detail::Source {
public:
	explicit FnSource(const ChunkSource &f) : f_(f) {}
	core::Result<std::string_view> next() override { return f_(); }

private:
	const ChunkSource &f_;
};

// Keeps the first `want` bytes; stops there, or with an error when the
// output passes the declared size.
class PrefixSink : public detail::Sink {
public:
	PrefixSink(std::uint64_t want, std::uint64_t declared) : want_(want), declared_(declared) {}
	bool add(const char *p, std::size_t n) override
	{
		total_ += n;
		if (total_ > declared_) {
			over_ = true;
			return false;
		}
		std::size_t keep = std::min<std::uint64_t>(n, want_ - data_.size());
		data_.append(p, keep);
		// Asked for all of it: run to the stream's end, so that more output
		// than declared is still caught.
		return data_.size() < want_ || want_ == declared_;
	}
	std::string data_;
	std::uint64_t total_ = 0;
	bool over_ = false;

private:
	std::uint64_t want_;
	std::uint64_t declared_;
};

} // namespace

core::Result<Prefix> inflate_prefix(Codec codec, const ChunkSource &next, std::uint64_t want,
				    std::uint64_t declared_size, std::uint64_t cap)
{
	const char *name = codec == Codec::zstd ? "zstd" : "zlib";
	if (want > cap)
		return core::Error{
			fmt::format("{}: {} bytes of output asked for, over the {}-byte limit", name, want, cap)};
	want = std::min(want, declared_size);
	Prefix out;
	if (want == 0)
		return out;
	FnSource in(next);
	PrefixSink sink(want, declared_size);
	auto r = codec == Codec::zstd ? detail::zstd_stream(in, sink) : detail::zlib_stream(in, sink, MAX_WBITS, name);
	if (!r)
		return r.error();
	if (sink.over_)
		return core::Error{fmt::format("{}: the data inflates to more than the {} bytes its header declares",
					       name, declared_size)};
	if (*r == detail::Ended::stream_end) {
		if (sink.total_ != declared_size)
			return core::Error{fmt::format("{}: the data inflates to {} bytes, its header declares {}",
						       name, sink.total_, declared_size)};
		out.whole = true;
	}
	out.data = std::move(sink.data_);
	return out;
}

} // namespace rdnafix::io
