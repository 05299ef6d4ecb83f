#pragma once
// Decompression of kernel module files (.ko.xz, .ko.zst, .ko.gz) with liblzma,
// libzstd and zlib, in memory, keeping only the last bytes: enough to read an
// appended signature without holding a whole amdgpu.ko.
#include "core/result.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::io {

enum class Compression { none, xz, zstd, gzip };
// By the data's magic bytes (xz FD 37 7A 58 5A 00, zstd 28 B5 2F FD, gzip 1F 8B).
Compression compression_of(std::string_view data);
std::string_view to_string(Compression c); // "none", "xz", "zstd", "gzip"

struct Decompressed {
	std::string tail;       // the last `keep_tail` bytes of the output (all of it when shorter)
	std::uint64_t size = 0; // the whole output's size
};
// Decompresses all of `data` (every concatenated stream/frame).  Errors name
// the format and the library's reason: corrupt or truncated input, output
// larger than `max_size`.  Compression::none returns the data itself.
core::Result<Decompressed> decompress_tail(std::string_view data, std::size_t keep_tail,
					   std::uint64_t max_size = 256ull << 20);

} // namespace rdnafix::io

namespace rdnafix::io {

// The two formats of llvm::compression (compressed offload bundles).
enum class Codec { zlib, zstd };

// The next chunk of compressed input; empty at its end.  Errors (a failed
// read) stop the decoder and are returned as they are.
using ChunkSource = std::function<core::Result<std::string_view>()>;

struct Prefix {
	std::string data;   // the first min(want, whole output) bytes
	bool whole = false; // the stream ended within `want` bytes: data is all of it
};
// What inflate_prefix may spend over many calls (a scan of many files): bytes
// of output and seconds of decoding.  Charged as the decoder runs; when
// either runs out the decoder stops, `spent` says which, and inflate_prefix
// returns an error.
struct InflateBudget {
	enum class Spent { no, bytes, seconds };
	std::uint64_t bytes_left = UINT64_MAX;
	double seconds_left = 1e300;
	Spent spent = Spent::no;
};

// Inflates only the first `want` bytes of a zlib stream / zstd frame,
// pulling input from `next` as it needs it: zip-bomb safe, memory bounded by
// want + one chunk.  Errors name the codec and the reason: corrupt or
// truncated data, more output than `declared_size` (the container's stated
// size), a stream that ends before `declared_size`, want above `cap`, the
// budget spent (`budget`, when given, is charged with every byte decoded).
core::Result<Prefix> inflate_prefix(Codec codec, const ChunkSource &next, std::uint64_t want,
				    std::uint64_t declared_size, std::uint64_t cap, InflateBudget *budget = nullptr);

// Spans of the output: inflates as far as the last span's end, keeping only
// the bytes inside the spans (the code-object headers of a bundle), so that
// memory stays the spans' size whatever lies between them.  Each window is
// cut at `declared_size`; errors as inflate_prefix, with a span past `cap`.
struct Span {
	std::uint64_t offset = 0;
	std::uint64_t length = 0;
};
struct Windows {
	std::vector<std::string> data; // one per span, in the order asked
	bool whole = false;            // the stream ended within the last span
};
core::Result<Windows> inflate_windows(Codec codec, const ChunkSource &next, std::vector<Span> spans,
				      std::uint64_t declared_size, std::uint64_t cap, InflateBudget *budget = nullptr);

} // namespace rdnafix::io
