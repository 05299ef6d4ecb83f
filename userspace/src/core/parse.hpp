// rdnafix core: pure parsers.  String in, struct out, errors as values.
// No I/O here: the caller reads with RootFs and passes the text.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <unordered_map>
#include <vector>

#include "core/result.hpp"
#include "core/types.hpp"

namespace rdnafix::core {

// ---------------------------------------------------------------- numbers ---

// Decimal or 0x-hex unsigned, surrounding whitespace (incl. "\n") ignored.
// "4096\n" -> 4096, "0xfff7bfff" -> 4294426623.  Errors name the text.
Result<std::uint64_t> parse_u64(std::string_view text);
// Signed decimal or 0x-hex ("-1" -> -1).  Range of int64.
Result<std::int64_t> parse_i64(std::string_view text);
// A sysfs "dev" attribute: "235:0" -> {235, 0} (decimal; major < 4096 and
// minor < 1048576, the kernel's MINORBITS 20).
Result<std::pair<unsigned, unsigned>> parse_major_minor(std::string_view text);
// A kernel bool module parameter as sysfs prints it: "Y"/"N" (also "1"/"0").
Result<bool> parse_kernel_bool(std::string_view text);
// "10.3.2" or three sysfs values -> GcVersion.
Result<GcVersion> parse_gc_version(std::string_view dotted);
// The remove-trailing-whitespace helper every sysfs value needs.
std::string_view trim(std::string_view s);

// -------------------------------------------------------- KFD topology ---

// /sys/class/kfd/kfd/topology/nodes/<N>/properties and
// .../mem_banks/<M>/properties: "<key> <decimal u64>" per line
// (docs/rocm-facts.md §5).  Lines that do not have that form are skipped and
// reported in `problems` ("line 3: expected '<key> <decimal>', got 'xyz'").
struct KfdProperties {
	std::vector<std::pair<std::string, std::uint64_t>> entries; // file order
	std::vector<std::string> problems;

	// The value of `key` (the last one if repeated).
	[[nodiscard]] std::optional<std::uint64_t> get(std::string_view key) const;
};
// Error only when not a single valid "<key> <value>" line is present
// (empty, binary garbage).
Result<KfdProperties> parse_kfd_properties(std::string_view text);

// Typed view of one KFD node's properties.
struct KfdNode {
	std::uint64_t cpu_cores_count = 0;
	std::uint64_t simd_count = 0;         // > 0 <=> GPU node
	std::uint64_t gfx_target_version = 0; // 100301 for gfx1031; 0 on CPU nodes
	std::uint64_t vendor_id = 0;          // 4098 = 0x1002
	std::uint64_t device_id = 0;          // PCI device id
	std::uint64_t location_id = 0;        // bus<<8 | devfn
	std::uint64_t domain = 0;             // PCI domain
	std::uint64_t drm_render_minor = 0;   // 128 -> /dev/dri/renderD128
	std::uint64_t unique_id = 0;
	std::uint64_t mem_banks_count = 0;
	[[nodiscard]] bool is_gpu() const { return simd_count > 0; }
	// "0000:65:00.0" from domain + location_id.
	[[nodiscard]] std::string pci_bdf() const;
};
// Missing keys stay 0; `gfx_target_version` etc. as printed by the kernel.
KfdNode kfd_node_from(const KfdProperties &props);

// mem_banks/<M>/properties.
struct KfdMemBank {
	std::uint64_t heap_type = 0; // 0 system, 1 FB public, 2 FB private (hsakmttypes.h)
	std::uint64_t size_in_bytes = 0;
	std::uint64_t flags = 0;
	std::uint64_t width = 0;
	std::uint64_t mem_clk_max = 0;
};
// Error when size_in_bytes is missing (no usable bank data).
Result<KfdMemBank> parse_kfd_mem_bank(std::string_view text);

// ----------------------------------------------------------- modprobe.d ---

// A module name with '-' mapped to '_' (kmod's and the kernel's equivalence):
// "snd-hda-intel" -> "snd_hda_intel".
std::string normalize_module_name(std::string_view name);

enum class ModprobeKind { options, install, remove, softdep, blacklist, alias };
std::string_view to_string(ModprobeKind kind);

// One parameter of an `options` line (or of the kernel command line), split
// with the kernel's rules (double quotes, '=' separates name and value).
struct ModuleParam {
	std::string name;                 // normalized: '-' -> '_'
	std::optional<std::string> value; // absent for a bare "name" (bool true)
};

// Where a value came from: file and 1-based line of the (first physical line
// of the) logical line.
struct Provenance {
	std::string file; // as given to the parser, e.g. "/etc/modprobe.d/amdgpu.conf"
	unsigned line = 0;
};

struct ModprobeEntry {
	ModprobeKind kind = ModprobeKind::options;
	std::string module;              // normalized ('_'); for alias: the target module
	std::string alias;               // alias only: the wildcard/name being aliased
	std::vector<ModuleParam> params; // options only, in order
	std::string command;             // install/remove: the shell command, verbatim
	std::vector<std::string> pre;    // softdep "pre:" modules (normalized)
	std::vector<std::string> post;   // softdep "post:" modules (normalized)
	Provenance where;
	std::string text; // the logical line after joining continuations
};

struct ModprobeConfig {
	std::vector<ModprobeEntry> entries; // file order
	// "file line N: ..." for unknown directives, missing module names,
	// '#' that is not at the start of a line (modprobe does NOT treat it as a
	// comment there: the words go to the module), etc.
	std::vector<std::string> problems;
};

// Parse one modprobe.d file (kmod syntax, modprobe.d(5)):
//  * a line whose first character is '#' is a comment, blank lines ignored;
//  * a trailing '\' joins the next physical line;
//  * directives options/install/remove/softdep/blacklist/alias (others and
//    malformed lines go to `problems` and are skipped);
//  * options values follow the kernel quoting rules (param="a b").
ModprobeConfig parse_modprobe_conf(std::string_view text, std::string_view file_name);

// The options for `module` (normalized compare) of several files in the
// order given, each param's LAST occurrence winning (the kernel parses the
// concatenated option string left to right).
struct ModuleParamSetting {
	std::string value; // "" for a bare flag
	Provenance where;
};
// kmod appends the kernel command line's `module.param=` options AFTER all
// files (kmod_config_new parses the files, then /proc/cmdline), so a caller
// computing the value modprobe passes must let KernelCmdline::module_params
// override these.
std::vector<std::pair<std::string, ModuleParamSetting>> module_options(const std::vector<ModprobeConfig> &configs,
								       std::string_view module);

// kmod's search directories, highest precedence first (Debian kmod).
inline constexpr std::string_view kModprobeDirs[] = {"etc/modprobe.d", "run/modprobe.d", "usr/local/lib/modprobe.d",
						     "lib/modprobe.d"};
struct ModprobeDir {
	std::string dir;                // e.g. "etc/modprobe.d"
	std::vector<std::string> files; // the names in it (any order)
};
struct ModprobeFile {
	std::string dir;
	std::string name;
};
// Which files kmod reads and in which order, from directory listings given
// highest precedence first: only "*.conf" (and "*.alias"), no dot-files; a
// name in an earlier directory hides the same name in later ones; the result
// is sorted by name (strcmp), which is the parse order.
std::vector<ModprobeFile> modprobe_file_order(const std::vector<ModprobeDir> &dirs);

// ------------------------------------------------------- kernel cmdline ---

struct CmdlineArg {
	std::string param;                // verbatim (quotes removed), e.g. "amdgpu.noretry"
	std::optional<std::string> value; // absent for "quiet"
	std::size_t index = 0;            // position among the kernel args
};

struct KernelCmdline {
	std::vector<CmdlineArg> args;       // before "--"
	std::vector<std::string> init_args; // after "--" (passed to init, not the kernel)

	// The LAST `module.param=value` for `module` and `param` ('-' and '_'
	// equivalent in both).  A bare "amdgpu.foo" yields value "".
	[[nodiscard]] std::optional<CmdlineArg> module_param(std::string_view module, std::string_view param) const;
	// Every module.param of `module`, last occurrence of each param winning,
	// in first-seen order; names normalized.
	[[nodiscard]] std::vector<std::pair<std::string, CmdlineArg>> module_params(std::string_view module) const;
	// The last plain (non-module) param, e.g. "iommu" or "amd_iommu".
	[[nodiscard]] std::optional<CmdlineArg> param(std::string_view name) const;
};

// /proc/cmdline with the kernel's next_arg() rules: args split on
// whitespace; a double quote toggles quoting (so param="a b" and "param=a b"
// are one arg); a value that starts with '"' loses that quote and a matching
// trailing one; "--" ends the kernel args.  NUL bytes are treated as
// separators.  Never fails (an empty cmdline has no args).
KernelCmdline parse_kernel_cmdline(std::string_view text);

// Split an option string ("a=1 b=\"x y\" c") into params with the same rules.
std::vector<ModuleParam> split_module_params(std::string_view text);

// ------------------------------------------------------ kernel version ---

// A release string (uname -r, /proc/sys/kernel/osrelease):
// "6.12.117+deb12-amd64" -> 6.12.117 "+deb12-amd64"; "6.14.0-27-generic" ->
// 6.14.0 "-27-generic"; "6.1.0-56-amd64" -> 6.1.0 (Debian's ABI name; the
// upstream patch level is in /proc/version, see below); "7.2" -> 7.2.0.
Result<KernelVersion> parse_kernel_release(std::string_view release);

// /proc/version: "Linux version <release> (...) #1 SMP ... Debian 6.1.192-2 (...)".
struct ProcVersion {
	KernelVersion release;                 // from "Linux version <release>"
	std::optional<KernelVersion> upstream; // "Debian 6.1.192-2" -> 6.1.192; Ubuntu "6.14.0-27.27" is not upstream
	std::string release_string;            // verbatim
};
Result<ProcVersion> parse_proc_version(std::string_view text);

// ------------------------------------------------------------ /proc/modules ---

struct LoadedModule {
	std::string name;
	std::uint64_t size = 0;
	// nullopt when the kernel prints "-": built without CONFIG_MODULE_UNLOAD it
	// knows no reference count and no users (kernel/module/procfs.c:
	// print_unload_info, Linux 6.1 and later; kernel/module.c before 5.19).
	std::optional<std::uint64_t> refcount;
	std::vector<std::string> used_by;
	std::string state; // "Live", "Loading", "Unloading"
};
// One module per line: "amdgpu 15441920 12 - Live 0x0000000000000000", or
// "amdgpu 15441920 - - Live 0x0000000000000000" without module unload support.
// Bad lines are skipped (reported in the error only if nothing parses and
// the text is not empty).
Result<std::vector<LoadedModule>> parse_proc_modules(std::string_view text);

// -------------------------------------------------------- environment ---

struct EnvVar {
	std::string name;
	std::string value;
	unsigned line = 0;  // 1-based line in an env file; 0 for environ
	bool unset = false; // an `unset NAME` in an env file (value "")
};

struct Environment {
	std::vector<EnvVar> vars;          // in order, duplicates kept
	std::vector<std::string> problems; // "line N: ..."
	// The value getenv() would see.  Env files: the last assignment wins (a
	// shell sourcing the file).  environ: the first one (glibc getenv).
	[[nodiscard]] std::optional<std::string> get(std::string_view name) const;
	bool last_wins = true;
};

// Which names a caller audits: malformed assignments are reported only for
// them (empty: every name).
using EnvRelevance = std::function<bool(std::string_view)>;

// The --env FILE format: `KEY=VALUE` lines and the shell start-up files users
// copy variables into.  Words are split like a POSIX shell (single quotes
// literal, double quotes with \" \\ \$ \` escapes, backslash, $(...), `...`,
// '#' comments, line continuations, ';' '&&' '||' '|' '&' between commands).
// Taken, in file order: NAME=VALUE (also before a command: `X=1 cmd`),
// export/declare/typeset/readonly NAME=VALUE..., env NAME=VALUE..., NAME+=VALUE,
// fish `set -gx NAME VALUE`, and `unset NAME` (recorded with EnvVar::unset).
// Conditions (`if`, `case`, function bodies) are not evaluated.  Skipped
// without a problem: commands, aliases, `source`, `set -x`, keywords.
// Problems ("line N: ..."): an unterminated quote (parsing stops there), and
// for relevant names spaces around '=' and a value cut by an unquoted space.
Environment parse_env_file(std::string_view text, const EnvRelevance &relevant);
Environment parse_env_file(std::string_view text);

// /proc/<pid>/environ: NUL-separated "KEY=VALUE" entries.
Environment parse_environ(std::string_view bytes);
// Whether `bytes` has the form of /proc/<pid>/environ (or a copy of it:
// `cat /proc/PID/environ > file`): entries that each end in a NUL, each a
// NAME=VALUE with a non-empty name of printable characters without blanks.
bool is_environ_block(std::string_view bytes);

// ----------------------------------------------- HSA / HIP variables ---

// HSA_OVERRIDE_GFX_VERSION value -> target, with ROCr's rules
// (libhsakmt topology.c sscanf "%u.%u.%u%c": exactly three decimal fields
// major.minor.stepping, major <= 63, minor <= 255, stepping <= 255, nothing
// trailing; like %u, white space or '+' before a number is accepted).
// "10.3.0" -> {10,3,0}.  "gfx1031", "10.3", "10,3,0", "" -> error whose message
// names the value and says what is valid (e.g. "10.3.0" for gfx1030).
Result<GfxTarget> parse_hsa_override(std::string_view value);

// HSA_OVERRIDE_GFX_VERSION_<N>: the node id N from the variable NAME, or
// nullopt when the name is not of that form (the plain name -> nullopt).
std::optional<unsigned> hsa_override_node(std::string_view var_name);

// One entry of a *_VISIBLE_DEVICES list.
struct VisibleDevice {
	std::optional<unsigned> index; // "1"
	std::string uuid;              // "GPU-1234abcd..." (set when not an index)
};
struct VisibleDevices {
	std::vector<VisibleDevice> devices;
	// Set when a negative index (the "-1 hides everything" idiom) ended the
	// list: the runtimes stop at the first such entry; later entries are ignored.
	std::optional<std::string> stopped_at;
	// True for an empty (but set) value or a list starting with -1: no device is visible.
	[[nodiscard]] bool hides_all() const { return devices.empty(); }
};
// "0,1", "GPU-5a7d... ,1", "" (hides all), "-1" (hides all).  Errors name the
// bad entry: "HIP_VISIBLE_DEVICES entry 'x' is invalid: expected a device
// index (0, 1, ...) or a UUID (GPU-<hex>)".  `var_name` is only used in
// messages.
Result<VisibleDevices> parse_visible_devices(std::string_view value, std::string_view var_name);

// ------------------------------------------- PyTorch allocator config ---

// PYTORCH_HIP_ALLOC_CONF / PYTORCH_CUDA_ALLOC_CONF: "key:value" options
// separated by ','.  True when an option turns expandable_segments on
// ("expandable_segments:True", any case).
bool alloc_conf_expandable(std::string_view value);

// The configuration split the way PyTorch's tokenizer does
// (c10 ConfigTokenizer / lexArgs: tokens end at ',' ':' '[' ']', white space is
// dropped): `key:value` options separated by ','; a value may be a bracketed
// list ("roundup_power2_divisions:[256:1,>:2]", kept as written without
// spaces).  Syntax errors go to `problems` ("option 2: 'x' has no ':value'");
// keys are not judged here (core/env_vars.hpp has the known keys).
struct AllocOption {
	std::string key;
	std::string value;
};
struct AllocConf {
	std::vector<AllocOption> options;
	std::vector<std::string> problems;
};
AllocConf parse_alloc_conf(std::string_view value);

// -------------------------------------------------- etc/group, passwd ---

// etc/group: "name:password:gid:member1,member2".
struct GroupEntry {
	std::string name;
	unsigned gid = 0;
	std::vector<std::string> members;
	unsigned line = 0;
};
// Lookups are O(1) through hash indexes that parse_group_file builds (the
// first entry of a name or gid wins, as getgrnam/getgrgid); a GroupFile built
// by hand without index() is searched linearly.
struct GroupFile {
	std::vector<GroupEntry> groups;
	std::vector<std::string> problems; // "line N: ..."
	[[nodiscard]] const GroupEntry *by_name(std::string_view name) const;
	[[nodiscard]] const GroupEntry *by_gid(unsigned gid) const;
	// The gids of every group that lists `user` as a member, in file order,
	// each once.  Linear in the size of the file.
	[[nodiscard]] std::vector<unsigned> member_gids(std::string_view user) const;
	void index();

private:
	std::unordered_map<std::string, std::size_t> by_name_;
	std::unordered_map<unsigned, std::size_t> by_gid_;
	std::size_t indexed_ = 0; // groups.size() when the indexes were built
};
GroupFile parse_group_file(std::string_view text);

// etc/passwd: "name:password:uid:gid:gecos:home:shell".
struct PasswdEntry {
	std::string name;
	unsigned uid = 0;
	unsigned gid = 0; // primary group
	std::string home;
	std::string shell;
	unsigned line = 0;
};
struct PasswdFile {
	std::vector<PasswdEntry> users;
	std::vector<std::string> problems;
	[[nodiscard]] const PasswdEntry *by_name(std::string_view name) const;
	[[nodiscard]] const PasswdEntry *by_uid(unsigned uid) const;
};
PasswdFile parse_passwd_file(std::string_view text);

// ------------------------------------------------- libdrm amdgpu.ids ---

// /usr/share/libdrm/amdgpu.ids: "device_id,\trevision_id,\tproduct_name"
// (hex ids), '#' comments, and a leading version line ("1.0.0").
struct AmdgpuIdsEntry {
	std::uint16_t device = 0;
	std::uint8_t revision = 0;
	std::string name;
	unsigned line = 0;
};
struct AmdgpuIds {
	std::string version; // the first non-comment line if it is not an entry
	std::vector<AmdgpuIdsEntry> entries;
	std::vector<std::string> problems;
	// libdrm's rule: exact (device, revision) match; the first one in the file.
	[[nodiscard]] const AmdgpuIdsEntry *lookup(std::uint16_t device, std::uint8_t revision) const;
};
AmdgpuIds parse_amdgpu_ids(std::string_view text);

// ------------------------------------------------------ dev/.devnodes ---

// One line of a captured tree's device-node manifest dev/.devnodes (format:
// tests/fixtures/README.md): `<path> <c|b> <major>:<minor> <octal mode>
// <owner> <group>`.  In git the nodes are empty regular files; the manifest
// holds what stat() showed on the machine.
struct DevNodeEntry {
	std::string path; // root-relative, no leading '/': "dev/kfd"
	FileType type = FileType::char_device;
	unsigned major = 0;
	unsigned minor = 0;
	unsigned mode = 0;
	std::string owner;
	std::string group;
};

// Bad lines are reported in `problems` ("dev/.devnodes line 3: ...") and
// skipped.
struct DevNodeManifest {
	std::vector<DevNodeEntry> entries;
	std::vector<std::string> problems;
};
DevNodeManifest parse_devnode_manifest(std::string_view text);

} // namespace rdnafix::core
