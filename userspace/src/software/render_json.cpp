// `rdnactl coverage --json` (schema_version 1) and the `coverage` object of
// `rdnactl status --json`.
#include "software/words.hpp"

#include "software/libdirs.hpp"

namespace rdnafix::coverage {

using nlohmann::ordered_json;

namespace {

ordered_json null_if_empty(const std::string &s)
{
	return s.empty() ? ordered_json(nullptr) : ordered_json(s);
}

ordered_json verdict_json(const DeviceVerdict &v)
{
	return {{"pci_bdf", null_if_empty(v.device)},
		{"gfx_target", v.gfx},
		{"verdict", std::string(to_string(v.verdict))},
		{"via", null_if_empty(v.via)},
		{"override_value", null_if_empty(v.override_value)},
		{"override_safety", v.override_safety ? ordered_json(std::string(rules::to_string(*v.override_safety)))
						      : ordered_json(nullptr)},
		{"override_reason", null_if_empty(v.override_reason)},
		{"reason", v.reason}};
}

ordered_json file_json(const FatbinFile &f)
{
	ordered_json bundles = ordered_json::array();
	for (const auto &b : f.bundles) {
		ordered_json entries = ordered_json::array();
		for (const auto &e : b.entries) {
			ordered_json x{
				{"id", e.id.raw},
				{"target", e.id.target ? ordered_json(spelled(*e.id.target)) : ordered_json(nullptr)},
				{"size", e.size}};
			if (e.elf) {
				x["e_flags"] = e.elf->e_flags;
				x["code_object_version"] = e.elf->code_object_version;
				x["elf_target"] = spelled(e.elf->target);
			}
			x["disagreement"] = null_if_empty(e.disagreement);
			entries.push_back(std::move(x));
		}
		bundles.push_back({{"file_offset", b.file_offset},
				   {"format", b.format == BundleFormat::ccob ? "ccob" : "plain"},
				   {"ccob_version", b.ccob_version},
				   {"compression", null_if_empty(b.compression)},
				   {"stored_size", b.stored_size},
				   {"uncompressed_size", b.uncompressed_size},
				   {"entries", std::move(entries)},
				   {"unreadable", null_if_empty(b.unreadable)}});
	}
	return {{"kind", std::string(to_string(f.kind))},
		{"size", f.size},
		{"bytes_read", f.bytes_read},
		{"code_object", f.code_object ? ordered_json(spelled(f.code_object->target)) : ordered_json(nullptr)},
		{"bundles", std::move(bundles)},
		{"unreadable", null_if_empty(f.unreadable)}};
}

} // namespace

ordered_json to_json(const Report &r, bool files)
{
	ordered_json gpus = ordered_json::array();
	for (const auto &g : r.gpus)
		gpus.push_back({{"pci_bdf", null_if_empty(g.device)},
				{"gfx_target", g.gfx},
				{"xnack", g.xnack_on},
				{"note", null_if_empty(g.note)}});
	ordered_json installs = ordered_json::array();
	for (std::size_t i = 0; i < r.installs.size(); ++i) {
		const Install &in = r.installs[i];
		ordered_json libs = ordered_json::array();
		for (std::size_t l = 0; l < in.libraries.size(); ++l) {
			const Library &lib = in.libraries[l];
			ordered_json targets = ordered_json::array();
			for (const auto &t : lib.targets)
				targets.push_back(spelled(t));
			ordered_json verdicts = ordered_json::array();
			for (const auto &j : r.judgements)
				if (j.install == i && j.library == l)
					for (const auto &d : j.devices)
						verdicts.push_back(verdict_json(d));
			ordered_json x{{"name", lib.name},
				       {"path", "/" + lib.path},
				       {"kind", std::string(to_string(lib.kind))},
				       {"targets", std::move(targets)}};
			if (files)
				x["file"] = lib.file ? file_json(*lib.file) : ordered_json(nullptr);
			x["problems"] = lib.problems;
			x["verdicts"] = std::move(verdicts);
			libs.push_back(std::move(x));
		}
		ordered_json summary = ordered_json::array();
		for (const auto &s : r.summary)
			if (s.install == i) {
				ordered_json v = verdict_json(s.verdict);
				v["decided_by"] = null_if_empty(s.library);
				summary.push_back(std::move(v));
			}
		installs.push_back({{"kind", std::string(to_string(in.kind))},
				    {"found_by", std::string(to_string(in.found_by))},
				    {"label", in.label},
				    {"version", null_if_empty(in.version)},
				    {"runtime_version", null_if_empty(in.runtime_version)},
				    {"path", "/" + in.path},
				    {"via", in.via},
				    {"libraries", std::move(libs)},
				    {"verdicts", std::move(summary)}});
	}
	ordered_json searched = ordered_json::array();
	for (const auto &s : r.searched)
		searched.push_back("/" + s);
	ordered_json o{{"gpus", std::move(gpus)},
		       {"installs", std::move(installs)},
		       {"searched", std::move(searched)},
		       {"notes", r.notes}};
	if (files)
		o["bytes_read"] = r.bytes_read;
	return o;
}

} // namespace rdnafix::coverage
