#pragma once
// amdgpu VM (GPUVM) fault decoding, pure: the L2 protection fault status
// register, the UTCL2 client-id table of each hub and GPU generation, and the
// kernel's multi-line fault block (page fault line, process, address, status).
//
// Register layout (the same for the GFX9 VM_L2_, GFX10/11 GCVM_L2_ and the
// MMVM_L2_ registers; docs/validate.md "Decoding GCVM_L2_PROTECTION_FAULT_STATUS"
// has the evidence): MORE_FAULTS [0], WALKER_ERROR [3:1], PERMISSION_FAULTS
// [7:4], MAPPING_ERROR [8], CID [17:9], RW [18], VMID [23:20].
//
// Client-id tables (written from the kernel's print_l2_protection_fault_status
// of each hub, Linux 6.12, drivers/gpu/drm/amd/amdgpu/):
//   gfxhub_v2_0.c, gfxhub_v2_1.c, gfxhub_v3_0.c   one list indexed by CID (GFX10, GFX11)
//   mmhub_v2_0.c   navi1x / sienna_cichlid (+ dimgrey_cavefish) / beige_goby, indexed [CID][RW]
//   mmhub_v2_3.c   vangogh (also Yellow Carp), [CID][RW]
//   mmhub_v3_0.c   v3_0_0 (Navi31), [CID][RW]
//   mmhub_v3_3.c   v3_3 (GFX11.5 APUs), [CID][RW] (the list before its 2025 ISP extension)
// The mmhub tables are two-dimensional: the same CID names a different client
// for a read and for a write.  A GPU outside these lists decodes without a name.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::core::amdgpu_fault {

enum class Hub { gfxhub, mmhub, unknown };
std::string_view hub_name(Hub h); // "gfxhub", "mmhub", "unknown hub"

// Which kernel client-id table applies.
enum class ClientTable {
	gfxhub_gfx10_gfx11,   // gfxhub_v2_0/v2_1/v3_0: GFX10 and GFX11
	mmhub_navi1x,         // mmhub_v2_0: Navi10/12/14 (gfx1010-gfx1012)
	mmhub_sienna_cichlid, // mmhub_v2_0: Navi21/22/23 (gfx1030-gfx1032)
	mmhub_beige_goby,     // mmhub_v2_0: Navi24 (gfx1034)
	mmhub_vangogh,        // mmhub_v2_3: Van Gogh, Yellow Carp (gfx1033, gfx1035)
	mmhub_v3_0_0,         // mmhub_v3_0: Navi31 (gfx1100)
	mmhub_v3_3,           // mmhub_v3_3: Strix (gfx1150, gfx1151)
	none,                 // no table known: the CID is printed without a name
};
std::string_view client_table_source(ClientTable t); // "mmhub_v2_0.c: mmhub_client_ids_navi1x"

// The table for a hub on a GPU with this gfx target ("gfx1031"); gfx "" for
// unknown: the gfxhub table is used for GCVM registers (identical on GFX10 and
// GFX11), no mmhub table.
ClientTable client_table_for(Hub hub, std::string_view gfx);
// The name the kernel prints for `cid` (and the RW bit, mmhub tables), "" when
// the table has none (the kernel prints "unknown").
std::string client_name(ClientTable t, unsigned cid, bool write);

struct FaultStatus {
	std::uint32_t raw = 0;
	std::string reg; // "GCVM_L2_PROTECTION_FAULT_STATUS", "VM_L2_...", "MMVM_L2_...", "" (bare value)
	Hub hub = Hub::unknown;
	ClientTable table = ClientTable::none;
	unsigned cid = 0;   // UTCL2 client id
	std::string client; // table name, "unknown" beyond a table, "" when no table applies
	bool more_faults = false;
	unsigned walker_error = 0;
	unsigned permission_faults = 0; // bit0 PTE not valid, bit1 not readable, bit2 not writable, bit3 not executable
	bool mapping_error = false;
	bool write = false; // RW: 1 = write access
	unsigned vmid = 0;
	std::string explain() const;     // one line, human readable
	std::string permissions() const; // "PTE not valid, PTE not readable" ("" when none)
};
// `reg` decides the hub (GCVM_ gfxhub, MMVM_ mmhub, VM_L2_ GFX9: no names);
// `gfx` picks the table within the hub (see client_table_for).
FaultStatus decode_status(std::uint32_t raw, std::string_view reg = "GCVM_L2_PROTECTION_FAULT_STATUS",
			  std::string_view gfx = "");
// Finds "<reg>:0x<hex>" (also "<reg>: 0x<hex>", "<reg>=0x<hex>") in a line and decodes it;
// nullopt when absent or not a 32-bit value.
std::optional<FaultStatus> find_status(std::string_view line, std::string_view gfx = "");

// One amdgpu VM fault as the kernel reports it over several lines
// (amdgpu_gmc.c / gmc_v10_0.c / gmc_v11_0.c: *_process_interrupt):
//   [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32773[, for process python pid 5578 thread python pid 5578])
//    Process python pid 5578 thread python pid 5578          (6.5+ print it on its own line)
//     in page starting at address 0x00007f5e85f94000 from client 10 | 0x1b (UTCL2)
//   GCVM_L2_PROTECTION_FAULT_STATUS:0x00801031
//   	 Faulty UTCL2 client ID: TCP (0x8) ... RW: 0x0
struct VmFault {
	std::string device; // "0000:c2:00.0" when the lines carry it
	Hub hub = Hub::unknown;
	bool retry = false; // "retry page fault"
	std::optional<unsigned> vmid, pasid, ring, src_id;
	std::string process, thread;
	std::optional<unsigned> pid, thread_pid;
	std::optional<std::uint64_t> address;
	std::optional<FaultStatus> status;
	std::string kernel_client; // the client name the kernel printed ("TCP"), "" when not printed
	unsigned repeats = 1;      // further "in page starting at" lines of the same fault
	// The caller's numbers of the first and last line that went into this
	// fault (VmFaultParser::feed's `index`; positions in parse_vm_faults' vector).
	std::size_t first_index = 0, last_index = 0;
};

// The number of up to 16 hex digits right after `key` in a log line (`key`
// ends in "0x": "in page starting at address 0x"); nullopt when none.
std::optional<std::uint64_t> hex_after(std::string_view line, std::string_view key);

// Line-level parsers (nullopt / false when the line is not that part).
bool parse_page_fault_line(std::string_view line, VmFault *f);
bool parse_process_line(std::string_view line, VmFault *f);
std::optional<std::uint64_t> parse_fault_address(std::string_view line);
// Groups the fault blocks of a kernel log (lines without any prefix handling
// beyond what the kernel itself prints; a timestamp or journal prefix is
// harmless).  A status line without a page-fault line before it is a fault
// of its own (only the raw status word printed).
std::vector<VmFault> parse_vm_faults(const std::vector<std::string_view> &lines, std::string_view gfx = "");

// parse_vm_faults one line at a time, for logs of any length: a fault is
// handed out as soon as the next one has started (nothing later can change
// it), so memory holds one fault, not the log.
class VmFaultParser {
public:
	explicit VmFaultParser(std::string_view gfx = "") : gfx_(gfx) {}
	// One line of the log; `index` is the caller's number for it (kept in
	// first_index / last_index).
	void feed(std::string_view line, std::size_t index);
	// The faults complete so far, oldest first (each handed out once).
	std::vector<VmFault> take_complete();
	// The end of the input: the faults not yet handed out.
	std::vector<VmFault> finish();
	// first_index of the fault still being assembled; nullopt when none.
	std::optional<std::size_t> open_since() const;

private:
	std::string gfx_;
	std::vector<VmFault> out_; // the complete faults not handed out, then the open one (when any)
	bool open_ = false;        // the last fault accepts further lines
	bool has_last_ = false;    // out_.back() is the fault being assembled
};

// The PCI address in "amdgpu 0000:0b:00.0: ..." ("" when none).
std::string device_of(std::string_view line);

// One line for a memory fault on an RDNA1/RDNA2 (GFX10) GPU: the kernel maps
// this memory NC or UC, never CC, so a ROCm rebuild "for MTYPE_NC" is not the
// cure (docs/amdgpu-facts.md section "MTYPE on GFX10"; status RDNA-MEM-010 and
// explain print it, each followed by what its evidence points at).
std::string_view gfx10_mtype_fact();

} // namespace rdnafix::core::amdgpu_fault
