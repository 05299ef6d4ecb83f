// The closed sets of the knowledge format as words (docs/knowledge.md): the
// parser reads them, the renderers print them.  Pure.
#include "knowledge/model.hpp"

namespace rdnafix::knowledge {

std::string_view word(Kind k)
{
	switch (k) {
	case Kind::runtime:
		return "runtime";
	case Kind::library:
		return "library";
	case Kind::framework:
		return "framework";
	case Kind::application:
		return "application";
	case Kind::kernel:
		return "kernel";
	}
	return "?";
}

std::string_view word(Severity s)
{
	switch (s) {
	case Severity::harmless:
		return "harmless";
	case Severity::warning:
		return "warning";
	case Severity::error:
		return "error";
	}
	return "?";
}

std::string_view word(Decoder d)
{
	switch (d) {
	case Decoder::text:
		return "text";
	case Decoder::integer:
		return "int";
	case Decoder::hex:
		return "hex";
	case Decoder::bytes:
		return "bytes";
	case Decoder::gfx:
		return "gfx";
	case Decoder::gfx_list:
		return "gfx-list";
	case Decoder::hip_error:
		return "hip-error";
	case Decoder::hsa_status:
		return "hsa-status";
	case Decoder::errno_name:
		return "errno";
	case Decoder::path:
		return "path";
	case Decoder::library:
		return "library";
	}
	return "?";
}

std::string_view word(Condition c)
{
	switch (c) {
	case Condition::always:
		return "always";
	case Condition::amd_gpu:
		return "amd-gpu";
	case Condition::no_amd_gpu:
		return "no-amd-gpu";
	case Condition::apu:
		return "apu";
	case Condition::dgpu:
		return "dgpu";
	case Condition::gfx101x:
		return "gfx101x";
	case Condition::gfx103x:
		return "gfx103x";
	case Condition::gfx10:
		return "gfx10";
	case Condition::gfx11:
		return "gfx11";
	case Condition::gfx115x:
		return "gfx115x";
	case Condition::gfx12:
		return "gfx12";
	case Condition::override_set:
		return "override-set";
	case Condition::override_unsafe:
		return "override-unsafe";
	case Condition::visible_devices_set:
		return "visible-devices-set";
	case Condition::kfd_missing:
		return "kfd-missing";
	case Condition::kfd_denied:
		return "kfd-denied";
	case Condition::noretry_0:
		return "noretry-0";
	case Condition::multi_gpu:
		return "multi-gpu";
	case Condition::rdnafix_loaded:
		return "rdnafix-loaded";
	case Condition::rdnafix_mtype:
		return "rdnafix-mtype";
	}
	return "?";
}

std::string_view word(Judge j)
{
	switch (j) {
	case Judge::none:
		return "none";
	case Judge::code_object:
		return "code-object";
	case Judge::no_binary:
		return "no-binary";
	case Judge::override_verdicts:
		return "override";
	case Judge::kfd_fault:
		return "kfd-fault";
	case Judge::vm_fault:
		return "vm-fault";
	case Judge::kernel_event:
		return "kernel-event";
	case Judge::oom:
		return "oom";
	case Judge::access:
		return "access";
	}
	return "?";
}

} // namespace rdnafix::knowledge
