#pragma once
// Kernel log capture for one validation case.
//
// Pure part: parsing /dev/kmsg records (Documentation/ABI/testing/dev-kmsg:
// "<prio>,<seq>,<usec>,<flags>[,...];<message>\n" followed by " KEY=value"
// continuation lines), picking out amdgpu fault / ring-timeout / reset lines, and
// decoding {GC,MM,}VM_L2_PROTECTION_FAULT_STATUS values.
// I/O part: class KmsgWatch (opens /dev/kmsg, seeks to the end at case start,
// reads what arrived afterwards without blocking).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/amdgpu_fault.hpp"
#include "io/unique_fd.hpp"

namespace rdnafix::validate {

struct KmsgRecord {
	int level = 0;    // syslog priority & 7
	int facility = 0; // priority >> 3
	std::uint64_t seq = 0;
	std::uint64_t usec = 0; // since boot
	std::string message;    // first line only, "\xNN" escapes kept as the kernel wrote them
};
// nullopt when `raw` is not a kmsg record.
std::optional<KmsgRecord> parse_kmsg_record(std::string_view raw);

// The L2 protection fault status decoder lives in core/amdgpu_fault.hpp (shared
// with `rdnactl explain` and status); validate keeps these names for its cases.
using FaultStatus = core::amdgpu_fault::FaultStatus;
// Decodes with the GFX10/11 gfxhub client table for GCVM_ registers (validate
// does not know the hub version of the GPU that faulted).
FaultStatus decode_fault_status(std::uint32_t raw, std::string_view reg = "GCVM_L2_PROTECTION_FAULT_STATUS");
// Finds "<reg>:0x<hex>" in a log line and decodes it.
std::optional<FaultStatus> find_fault_status(std::string_view line);
// Name of a GFX10/11 gfxhub UTCL2 client id ("TCP" for 8), "unknown" outside the table.
std::string gfx10_client_name(unsigned cid);

enum class LogKind {
	page_fault,   // "[gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:...)", "in page starting at ..."
	fault_status, // "GCVM_L2_PROTECTION_FAULT_STATUS:0x..." (decoded)
	fault_detail, // the kernel's own decoded lines: "Faulty UTCL2 client ID", "MORE_FAULTS: ..." ...
	ring_timeout, // "ring gfx_0.0.0 timeout", "*ERROR* ring sdma0 timeout"
	gpu_reset,    // "GPU reset begin", "GPU recovery", "reset succeeded", "device wedged", "MES failed"
	kfd_event,    // KFD / HSA memory exceptions
};
const char *log_kind_name(LogKind k);
// nullopt when the line is not one rdnactl attaches to a case.
std::optional<LogKind> classify_log_line(std::string_view line);

struct LogEvent {
	LogKind kind;
	std::string text;
	std::optional<FaultStatus> fault;
};
std::vector<LogEvent> extract_events(const std::vector<std::string> &lines);

// Reads /dev/kmsg from the moment of construction.  Never throws: when the log
// cannot be read (no permission, kernel.dmesg_restrict, no /dev/kmsg) ok() is
// false and note() says why.
class KmsgWatch {
public:
	explicit KmsgWatch(const char *path = "/dev/kmsg");

	bool ok() const { return bool(fd_); }
	const std::string &note() const { return note_; }
	// Every record written since construction (or since the last call).
	std::vector<KmsgRecord> read_new();

private:
	io::unique_fd fd_;
	std::string note_;
};

} // namespace rdnafix::validate
