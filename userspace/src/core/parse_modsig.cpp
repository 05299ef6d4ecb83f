// The appended module signature: the trailer and, for PKCS#7, the first
// SignerInfo's issuer commonName, serial number and digest algorithm (a DER
// walk of the fields on the way, nothing verified).
#include "core/parse_modsig.hpp"

#include <fmt/format.h>

#include <optional>

namespace rdnafix::core {

namespace {

// One DER element: tag, and the content as a view.
struct Der {
	std::uint8_t tag = 0;
	std::string_view body;
};

// Reads the element at the start of `in` and advances `in` past it.
std::optional<Der> next(std::string_view &in)
{
	if (in.size() < 2)
		return std::nullopt;
	Der d;
	d.tag = static_cast<std::uint8_t>(in[0]);
	if ((d.tag & 0x1f) == 0x1f)
		return std::nullopt; // high tag numbers do not occur in these structures
	std::size_t pos = 2, len = static_cast<std::uint8_t>(in[1]);
	if (len & 0x80) {
		std::size_t n = len & 0x7f;
		if (n == 0 || n > 4 || in.size() < 2 + n)
			return std::nullopt; // indefinite length (BER) or absurd
		len = 0;
		for (std::size_t i = 0; i < n; ++i)
			len = len << 8 | static_cast<std::uint8_t>(in[2 + i]);
		pos += n;
	}
	if (in.size() - pos < len)
		return std::nullopt;
	d.body = in.substr(pos, len);
	in.remove_prefix(pos + len);
	return d;
}

std::optional<Der> expect(std::string_view &in, std::uint8_t tag)
{
	auto d = next(in);
	if (!d || d->tag != tag)
		return std::nullopt;
	return d;
}

constexpr std::uint8_t kSeq = 0x30, kSet = 0x31, kInt = 0x02, kOid = 0x06, kCtx0 = 0xa0, kCtx1 = 0xa1;

std::string digest_name(std::string_view oid)
{
	// 2.16.840.1.101.3.4.2.{1,2,3,4} and 1.3.14.3.2.26 (sha1)
	static const std::pair<std::string_view, const char *> known[] = {
		{"\x60\x86\x48\x01\x65\x03\x04\x02\x01", "sha256"},
		{"\x60\x86\x48\x01\x65\x03\x04\x02\x02", "sha384"},
		{"\x60\x86\x48\x01\x65\x03\x04\x02\x03", "sha512"},
		{"\x60\x86\x48\x01\x65\x03\x04\x02\x04", "sha224"},
		{"\x2b\x0e\x03\x02\x1a", "sha1"},
	};
	for (const auto &[o, n] : known)
		if (oid == o)
			return n;
	return "";
}

std::string hex_colon(std::string_view bytes)
{
	std::string out;
	for (unsigned char c : bytes)
		out += fmt::format("{}{:02X}", out.empty() ? "" : ":", c);
	return out;
}

// The commonName (2.5.4.3) of an X.501 Name's content.
std::string common_name(std::string_view name)
{
	while (auto rdn = expect(name, kSet)) {
		std::string_view set = rdn->body;
		while (auto atv = expect(set, kSeq)) {
			std::string_view a = atv->body;
			auto oid = expect(a, kOid);
			auto val = next(a);
			if (oid && val && oid->body == std::string_view("\x55\x04\x03", 3))
				return std::string(val->body);
		}
	}
	return "";
}

// The first SignerInfo of a PKCS#7 ContentInfo carrying SignedData.
void read_pkcs7(std::string_view msg, ModuleSignature &out)
{
	auto ci = expect(msg, kSeq);
	if (!ci)
		return;
	std::string_view c = ci->body;
	if (!expect(c, kOid))
		return;
	auto explicit0 = expect(c, kCtx0);
	if (!explicit0)
		return;
	std::string_view e = explicit0->body;
	auto sd = expect(e, kSeq);
	if (!sd)
		return;
	std::string_view s = sd->body;
	if (!expect(s, kInt) || !expect(s, kSet) || !expect(s, kSeq))
		return; // version, digestAlgorithms, contentInfo
	auto el = next(s);
	while (el && (el->tag == kCtx0 || el->tag == kCtx1)) // certificates, crls
		el = next(s);
	if (!el || el->tag != kSet)
		return;
	std::string_view infos = el->body;
	auto si = expect(infos, kSeq);
	if (!si)
		return;
	std::string_view i = si->body;
	if (!expect(i, kInt))
		return;
	auto sid = next(i);
	if (sid && sid->tag == kSeq) { // issuerAndSerialNumber
		std::string_view ias = sid->body;
		auto issuer = expect(ias, kSeq);
		auto serial = expect(ias, kInt);
		if (issuer)
			out.signer = common_name(issuer->body);
		if (serial)
			out.key_serial = hex_colon(serial->body);
	} else if (sid && sid->tag == 0x80) { // [0] subjectKeyIdentifier
		out.key_serial = hex_colon(sid->body);
	}
	if (auto alg = expect(i, kSeq)) {
		std::string_view a = alg->body;
		if (auto oid = expect(a, kOid))
			out.hash_algo = digest_name(oid->body);
	}
}

} // namespace

Result<ModuleSignature> parse_module_signature(std::string_view tail, std::uint64_t file_size)
{
	ModuleSignature out;
	const std::size_t marker = kModuleSigMarker.size(), info = 12;
	if (tail.size() < marker || tail.substr(tail.size() - marker) != kModuleSigMarker)
		return out;
	out.present = true;
	if (tail.size() < marker + info || file_size < marker + info)
		return Error{
			"module signature: the marker is there but the 12-byte information block before it is not"};
	std::string_view blk = tail.substr(tail.size() - marker - info, info);
	auto u8 = [&](std::size_t i) { return static_cast<std::uint8_t>(blk[i]); };
	out.algo = u8(0);
	out.hash = u8(1);
	out.id_type = u8(2);
	out.signer_len = u8(3);
	out.key_id_len = u8(4);
	out.sig_len = std::uint32_t(u8(8)) << 24 | std::uint32_t(u8(9)) << 16 | std::uint32_t(u8(10)) << 8 | u8(11);
	if (out.id_type > static_cast<std::uint8_t>(ModuleSigIdType::pkcs7))
		return Error{
			fmt::format("module signature: id_type {} is unknown (0 PGP, 1 X.509, 2 PKCS#7)", out.id_type)};
	const std::uint64_t body = std::uint64_t(out.sig_len) + out.signer_len + out.key_id_len;
	if (body >= file_size - marker - info)
		return Error{fmt::format("module signature: sig_len {} does not fit in a file of {} bytes", out.sig_len,
					 file_size)};
	out.kernel_format = out.id_type == static_cast<std::uint8_t>(ModuleSigIdType::pkcs7) && out.algo == 0 &&
			    out.hash == 0 && out.signer_len == 0 && out.key_id_len == 0 && u8(5) == 0 && u8(6) == 0 &&
			    u8(7) == 0;
	const std::size_t before = tail.size() - marker - info;
	if (body > before)
		return out; // the caller's tail is too short to see the signature itself
	std::string_view sig = tail.substr(before - out.sig_len, out.sig_len);
	if (out.id_type == static_cast<std::uint8_t>(ModuleSigIdType::pkcs7))
		read_pkcs7(sig, out);
	else
		out.signer = std::string(tail.substr(before - body, out.signer_len));
	return out;
}

} // namespace rdnafix::core
