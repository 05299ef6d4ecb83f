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
// Inflates only the first `want` bytes of a zlib stream / zstd frame,
// pulling input from `next` as it needs it: zip-bomb safe, memory bounded by
// want + one chunk.  Errors name the codec and the reason: corrupt or
// truncated data, more output than `declared_size` (the container's stated
// size), a stream that ends before `declared_size`, want above `cap`.
core::Result<Prefix> inflate_prefix(Codec codec, const ChunkSource &next, std::uint64_t want,
				    std::uint64_t declared_size, std::uint64_t cap);

} // namespace rdnafix::io
