#include "history/result.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "core/text_safe.hpp"

namespace rdnafix::validate {

namespace {
constexpr std::pair<Status, const char *> kStatusNames[] = {{Status::pass, "pass"}, {Status::fail, "fail"},
							    {Status::skip, "skip"}, {Status::crash, "crash"},
							    {Status::hang, "hang"}, {Status::error, "error"}};

template <class Json> void put_opt(Json &j, const char *key, const std::optional<double> &v)
{
	if (v)
		j[key] = *v;
}

// Machine-supplied text as a JSON string: valid UTF-8 whatever the bytes.
std::string text(const std::string &s)
{
	return core::utf8_valid(s);
}

// A captured tail starts where the capture cut it: drop the continuation bytes
// (10xxxxxx, at most 3) of a sequence cut in two, then make the rest valid.
std::string tail_text(const std::string &s)
{
	std::size_t start = 0;
	while (start < 3 && start < s.size() && (static_cast<unsigned char>(s[start]) & 0xc0) == 0x80)
		++start;
	return core::utf8_valid(std::string_view(s).substr(start));
}

std::optional<double> get_opt(const nlohmann::json &j, const char *key)
{
	if (!j.contains(key) || j[key].is_null())
		return std::nullopt;
	if (!j[key].is_number())
		throw std::runtime_error(fmt::format("field '{}' is not a number", key));
	return j[key].get<double>();
}

// nlohmann::json for the history store, ordered_json (the keys in this order)
// for what validate prints.
template <class Json> void case_to_json(Json &j, const CaseResult &r)
{
	j = Json::object();
	j["name"] = text(r.name);
	j["status"] = status_name(r.status);
	if (!r.reason.empty())
		j["reason"] = text(r.reason);
	put_opt(j, "max_abs", r.max_abs);
	put_opt(j, "max_rel", r.max_rel);
	put_opt(j, "rms_range", r.rms_range);
	put_opt(j, "gflops", r.gflops);
	put_opt(j, "gbs", r.gbs);
	j["seconds"] = r.seconds;
	if (!r.details.is_null())
		j["details"] = r.details;
	if (!r.kernel_log.empty() || !r.kernel_log_note.empty()) {
		auto &kl = j["kernel_log"];
		kl = Json::array();
		for (const auto &e : r.kernel_log) {
			Json ev{{"kind", log_kind_name(e.kind)}, {"text", text(e.text)}};
			if (e.fault) {
				const auto &f = *e.fault;
				ev["decoded"] = {{"register", f.reg},
						 {"raw", fmt::format("0x{:08X}", f.raw)},
						 {"cid", f.cid},
						 {"client", f.client},
						 {"more_faults", f.more_faults},
						 {"walker_error", f.walker_error},
						 {"permission_faults", f.permission_faults},
						 {"mapping_error", f.mapping_error},
						 {"rw", f.write ? "write" : "read"},
						 {"vmid", f.vmid},
						 {"explain", f.explain()}};
			}
			kl.push_back(std::move(ev));
		}
		if (!r.kernel_log_note.empty())
			j["kernel_log_note"] = text(r.kernel_log_note);
	}
	if (!r.output_tail.empty())
		j["output_tail"] = tail_text(r.output_tail);
}

} // namespace

const char *status_name(Status s)
{
	for (const auto &[st, name] : kStatusNames)
		if (st == s)
			return name;
	return "?";
}

std::optional<Status> parse_status(std::string_view s)
{
	for (const auto &[st, name] : kStatusNames)
		if (s == name)
			return st;
	return std::nullopt;
}

bool is_failure(Status s)
{
	return s != Status::pass && s != Status::skip;
}

void to_json(nlohmann::json &j, const CaseResult &r)
{
	case_to_json(j, r);
}

void to_json(nlohmann::ordered_json &j, const CaseResult &r)
{
	case_to_json(j, r);
}

void from_json(const nlohmann::json &j, CaseResult &r)
{
	if (!j.is_object())
		throw std::runtime_error("result is not a JSON object");
	r = CaseResult{};
	if (!j.contains("status") || !j["status"].is_string())
		throw std::runtime_error("field 'status' is missing or not a string");
	const auto st = parse_status(j["status"].get<std::string>());
	if (!st)
		throw std::runtime_error(fmt::format("field 'status' = '{}' is not one of pass, fail, skip, crash, "
						     "hang, error",
						     j["status"].get<std::string>()));
	r.status = *st;
	if (j.contains("name") && j["name"].is_string())
		r.name = j["name"].get<std::string>();
	if (j.contains("reason") && j["reason"].is_string())
		r.reason = j["reason"].get<std::string>();
	r.max_abs = get_opt(j, "max_abs");
	r.max_rel = get_opt(j, "max_rel");
	r.rms_range = get_opt(j, "rms_range");
	r.gflops = get_opt(j, "gflops");
	r.gbs = get_opt(j, "gbs");
	if (auto s = get_opt(j, "seconds"))
		r.seconds = *s;
	if (j.contains("details"))
		r.details = j["details"];
}

Tally tally(const std::vector<CaseResult> &results)
{
	Tally t;
	for (const auto &r : results) {
		if (r.status == Status::pass)
			++t.passed;
		else if (r.status == Status::skip)
			++t.skipped;
		else
			++t.failed;
	}
	return t;
}

} // namespace rdnafix::validate
