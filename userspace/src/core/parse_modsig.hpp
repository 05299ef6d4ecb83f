#pragma once
// The appended signature of a kernel module (what `modinfo` shows as sig_id,
// signer, sig_key, sig_hashalgo), read from the module's last bytes: the
// marker "~Module signature appended~\n", before it struct module_signature
// (12 bytes), before that the signature data (include/linux/module_signature.h
// and scripts/sign-file.c, Linux 6.12; docs/boot-security.md §1).  Pure:
// bytes in, values out.
#include "core/result.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace rdnafix::core {

inline constexpr std::string_view kModuleSigMarker = "~Module signature appended~\n";

// pkey_id_type of include/linux/module_signature.h.
enum class ModuleSigIdType : std::uint8_t { pgp = 0, x509 = 1, pkcs7 = 2 };

struct ModuleSignature {
	bool present = false; // the marker ends the file
	std::uint8_t algo = 0, hash = 0, id_type = 0, signer_len = 0, key_id_len = 0;
	std::uint32_t sig_len = 0; // big-endian in the file
	// What the kernel's mod_check_sig() would accept: id_type PKCS#7 and the
	// other fields 0 (everything is inside the PKCS#7 message).
	bool kernel_format = false;
	// From the PKCS#7 message's first SignerInfo (what kmod's modinfo prints):
	// the issuer's commonName, the serial number in hex ("4f:e1:..."), and
	// the digest algorithm ("sha256").  Empty when not found.
	std::string signer, key_serial, hash_algo;
};

// `tail`: the last bytes of the (decompressed) module, at least the whole
// signature; `file_size`: the module's full size.  No marker -> present false.
// A marker with an information block that cannot be right (signature longer
// than the file, id_type unknown) -> error naming the field and its value.
Result<ModuleSignature> parse_module_signature(std::string_view tail, std::uint64_t file_size);

} // namespace rdnafix::core
