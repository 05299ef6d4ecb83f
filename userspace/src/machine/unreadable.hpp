#pragma once
// An item that could not be read (every record of the snapshot keeps a list).
#include <string>

namespace rdnafix::machine {

// An item that could not be read: which record field, from which path, and why.
struct Unreadable {
	std::string item;   // JSON key of the field that stays null, e.g. "vram_total_bytes"
	std::string path;   // path relative to the root ("sys/bus/pci/devices/.../mem_info_vram_total")
	std::string reason; // e.g. "No such file or directory", "not a number: 'garbage'"
};

} // namespace rdnafix::machine
