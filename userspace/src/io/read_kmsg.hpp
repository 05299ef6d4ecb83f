#pragma once
// The kernel log of this boot as /dev/kmsg holds it: every record still in
// the ring buffer, read without blocking, bounded.  Never throws.
#include <cstddef>
#include <string>

namespace rdnafix::io {

struct KmsgDump {
	std::string text;       // one record per line: "<prio>,<seq>,<usec>,<flags>;<message>"
	bool truncated = false; // the bound was reached
	std::string error;      // "" when read; else why not ("cannot open /dev/kmsg: Permission denied ...")
};

KmsgDump read_kmsg(const char *path = "/dev/kmsg", std::size_t max_bytes = 16u * 1024 * 1024);

} // namespace rdnafix::io
