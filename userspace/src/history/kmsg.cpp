#include "history/kmsg.hpp"
#include "io/fs_error.hpp"

#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "core/parse.hpp"

namespace rdnafix::validate {

namespace {

// A decimal field of a record: digits only (core::parse_u64 also takes 0x-hex and blanks).
bool parse_dec(std::string_view s, std::uint64_t *out)
{
	if (s.empty() || s.find_first_not_of("0123456789") != std::string_view::npos)
		return false;
	const auto v = core::parse_u64(s);
	if (!v)
		return false;
	*out = *v;
	return true;
}

bool contains(std::string_view hay, std::string_view needle)
{
	return hay.find(needle) != std::string_view::npos;
}

} // namespace

std::optional<KmsgRecord> parse_kmsg_record(std::string_view raw)
{
	const auto semi = raw.find(';');
	if (semi == std::string_view::npos)
		return std::nullopt;
	std::string_view head = raw.substr(0, semi);
	std::string_view body = raw.substr(semi + 1);
	// head: prio,seq,usec,flags[,more...]
	std::array<std::string_view, 4> f{};
	for (std::size_t i = 0; i < 4; ++i) {
		const auto comma = head.find(',');
		f[i] = head.substr(0, comma);
		if (comma == std::string_view::npos) {
			if (i < 3)
				return std::nullopt;
			head = {};
		} else {
			head = head.substr(comma + 1);
		}
	}
	std::uint64_t prio = 0;
	KmsgRecord r;
	if (!parse_dec(f[0], &prio) || !parse_dec(f[1], &r.seq) || !parse_dec(f[2], &r.usec))
		return std::nullopt;
	r.level = int(prio & 7);
	r.facility = int(prio >> 3);
	const auto nl = body.find('\n');
	r.message = std::string(body.substr(0, nl));
	return r;
}

std::string gfx10_client_name(unsigned cid)
{
	namespace af = core::amdgpu_fault;
	const auto n = af::client_name(af::ClientTable::gfxhub_gfx10_gfx11, cid, false);
	return n.empty() ? "unknown" : n;
}

FaultStatus decode_fault_status(std::uint32_t raw, std::string_view reg)
{
	return core::amdgpu_fault::decode_status(raw, reg);
}

std::optional<FaultStatus> find_fault_status(std::string_view line)
{
	// validate only attaches the ":0x" form the kernel prints
	if (line.find("_L2_PROTECTION_FAULT_STATUS:0x") == std::string_view::npos)
		return std::nullopt;
	return core::amdgpu_fault::find_status(line);
}

const char *log_kind_name(LogKind k)
{
	switch (k) {
	case LogKind::page_fault:
		return "page-fault";
	case LogKind::fault_status:
		return "fault-status";
	case LogKind::fault_detail:
		return "fault-detail";
	case LogKind::ring_timeout:
		return "ring-timeout";
	case LogKind::gpu_reset:
		return "gpu-reset";
	case LogKind::kfd_event:
		return "kfd";
	}
	return "?";
}

std::optional<LogKind> classify_log_line(std::string_view l)
{
	if (contains(l, "_L2_PROTECTION_FAULT_STATUS:0x"))
		return LogKind::fault_status;
	const bool amd = contains(l, "amdgpu") || contains(l, "gmc_v") || contains(l, "amdkfd") || contains(l, "kfd");
	if (!amd)
		return std::nullopt;
	if ((contains(l, "page fault") && (contains(l, "hub") || contains(l, "src_id"))) ||
	    contains(l, "in page starting at address") || (contains(l, "gmc_v") && contains(l, "callbacks suppressed")))
		return LogKind::page_fault;
	for (std::string_view k : {"Faulty UTCL2 client ID", "MORE_FAULTS:", "WALKER_ERROR:", "PERMISSION_FAULTS:",
				   "MAPPING_ERROR:", "\t RW:", " RW: 0x"})
		if (contains(l, k))
			return LogKind::fault_detail;
	if (contains(l, "ring ") && contains(l, "timeout"))
		return LogKind::ring_timeout;
	for (std::string_view k :
	     {"GPU reset", "GPU recovery", "reset succeeded", "reset failed", "device wedged", "MES failed to respond",
	      "ASIC reset", "mode1 reset", "MODE1 reset", "job timedout", "GPU hang", "VRAM is lost"})
		if (contains(l, k))
			return LogKind::gpu_reset;
	for (std::string_view k : {"Memory access fault", "HW Exception", "qcm fence wait loop timeout",
				   "Failed to evict", "Failed to quiesce"})
		if (contains(l, k))
			return LogKind::kfd_event;
	return std::nullopt;
}

std::vector<LogEvent> extract_events(const std::vector<std::string> &lines)
{
	std::vector<LogEvent> out;
	for (const auto &l : lines) {
		auto kind = classify_log_line(l);
		if (!kind)
			continue;
		LogEvent e{*kind, l, std::nullopt};
		if (*kind == LogKind::fault_status)
			e.fault = find_fault_status(l);
		out.push_back(std::move(e));
	}
	return out;
}

KmsgWatch::KmsgWatch(const char *path)
{
	fd_.reset(::open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC));
	if (!fd_) {
		const int e = errno;
		note_ = fmt::format("kernel log not captured: cannot open {}: {}{}", path, io::errno_text(e),
				    e == EPERM || e == EACCES
					    ? "; run as root, or set kernel.dmesg_restrict=0 / add CAP_SYSLOG"
					    : "");
		return;
	}
	// SEEK_END on /dev/kmsg moves to the end of the ring buffer: only records
	// written from now on are read.
	if (::lseek(fd_.get(), 0, SEEK_END) < 0) {
		note_ = fmt::format("kernel log not captured: lseek({}, SEEK_END): {}", path, io::errno_text(errno));
		fd_.reset();
	}
}

std::vector<KmsgRecord> KmsgWatch::read_new()
{
	std::vector<KmsgRecord> out;
	if (!fd_)
		return out;
	std::array<char, 8192> buf; // one record per read(); records are < 8 KiB
	for (int guard = 0; guard < 100000; ++guard) {
		const ssize_t n = ::read(fd_.get(), buf.data(), buf.size());
		if (n > 0) {
			if (auto r = parse_kmsg_record(std::string_view(buf.data(), std::size_t(n))))
				out.push_back(std::move(*r));
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE) { // records were overwritten before we read them
			note_ = "some kernel log records were overwritten before rdnactl read them";
			continue;
		}
		break; // EAGAIN: nothing more; other errors: stop
	}
	return out;
}

} // namespace rdnafix::validate
