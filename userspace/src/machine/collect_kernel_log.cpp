// Reader: the kernel log of the current boot.  Live: every record still in
// /dev/kmsg (non-blocking, bounded: io/read_kmsg).  Under --root: the captured
// `dmesg` output in var/log/rdnafix-dmesg, when the tree has one (no file: no
// section).  The events are parsed by core::parse_kernel_log.
#include "machine/collect_internal.hpp"

#include "io/read_kmsg.hpp"

namespace rdnafix::machine::detail {

namespace {
constexpr std::size_t kMaxLog = 16u * 1024 * 1024;
constexpr const char *kCapturedDmesg = "var/log/rdnafix-dmesg";
} // namespace

void collect_kernel_log(io::RootFs &fs, KernelLog &k, bool live)
{
	if (live) {
		k.source = KernelLogSource::kmsg;
		k.path = "/dev/kmsg";
		auto d = io::read_kmsg(k.path.c_str(), kMaxLog);
		if (!d.error.empty()) {
			k.error = d.error;
			return;
		}
		k.truncated = d.truncated;
		k.events = core::parse_kernel_log(d.text);
		return;
	}
	if (!fs.exists(kCapturedDmesg))
		return;
	k.source = KernelLogSource::file;
	k.path = kCapturedDmesg;
	auto t = fs.read_text(kCapturedDmesg, {.max_bytes = kMaxLog, .allow_empty = true});
	if (!t) {
		k.error = t.error().reason();
		return;
	}
	k.events = core::parse_kernel_log(*t);
}

} // namespace rdnafix::machine::detail
