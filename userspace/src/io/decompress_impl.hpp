#pragma once
// The stream decoders shared by decompress_tail (kernel modules) and
// inflate_prefix (compressed offload bundles): input pulled in chunks from a
// Source, output pushed to a Sink that may stop the decoder early.  Included
// only by decompress*.cpp.
#include "core/result.hpp"

#include <cstddef>
#include <string_view>

namespace rdnafix::io::detail {

constexpr std::size_t kChunk = 64 * 1024;

class Source {
public:
	virtual ~Source() = default;
	// The next chunk of compressed input; empty at the end of the input.
	virtual core::Result<std::string_view> next() = 0;
};

class Sink {
public:
	virtual ~Sink() = default;
	// False stops the decoder (the sink has enough, or too much).
	virtual bool add(const char *p, std::size_t n) = 0;
};

enum class Ended { stream_end, sink_stopped };
// Decode every frame of the input (zstd) / the stream and, for gzip, every
// member.  Errors: "<name>: corrupt data (...)", "<name>: truncated data".
core::Result<Ended> zstd_stream(Source &in, Sink &out);
// window_bits as inflateInit2: 16 + MAX_WBITS gzip (all members), MAX_WBITS zlib.
core::Result<Ended> zlib_stream(Source &in, Sink &out, int window_bits, const char *name);

} // namespace rdnafix::io::detail
