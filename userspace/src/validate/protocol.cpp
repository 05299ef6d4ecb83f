#include "protocol.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "core/text_safe.hpp"
#include "io/child_runner.hpp"

namespace rdnafix::validate {

namespace {

constexpr std::pair<ProbeReply::State, const char *> kStateNames[] = {
	{ProbeReply::State::ok, "ok"},
	{ProbeReply::State::no_runtime, "no_runtime"},
	{ProbeReply::State::runtime_no_device, "runtime_no_device"},
	{ProbeReply::State::init_failed, "init_failed"},
	{ProbeReply::State::no_backend, "no_backend"}};

void require_object(const nlohmann::json &j, const char *what)
{
	if (!j.is_object())
		throw std::runtime_error(fmt::format("{} is not a JSON object", what));
}

} // namespace

const char *probe_state_name(ProbeReply::State s)
{
	for (const auto &[st, name] : kStateNames)
		if (st == s)
			return name;
	return "?";
}

void to_json(nlohmann::json &j, const CaseRequest &r)
{
	j = {{"case", r.case_name},
	     {"inject_error", r.inject_error},
	     {"capacity_fraction", r.capacity_fraction},
	     {"device", r.device},
	     {"api", r.api},
	     {"quick", r.quick}};
}

void from_json(const nlohmann::json &j, CaseRequest &r)
{
	require_object(j, "case request");
	if (!j.contains("case") || !j["case"].is_string())
		throw std::runtime_error("case request: field 'case' is missing or not a string");
	r = CaseRequest{};
	r.case_name = j["case"].get<std::string>();
	r.inject_error = j.value("inject_error", false);
	r.capacity_fraction = j.value("capacity_fraction", 0.5);
	r.device = j.value("device", 0);
	r.api = j.value("api", std::string());
	r.quick = j.value("quick", false);
}

void to_json(nlohmann::json &j, const ProbeRequest &r)
{
	j = {{"api", r.api}};
}

void from_json(const nlohmann::json &j, ProbeRequest &r)
{
	require_object(j, "probe request");
	r.api = j.value("api", std::string());
}

void to_json(nlohmann::json &j, const ProbeReply &r)
{
	j = {{"state", probe_state_name(r.state)},
	     {"report", r.report},
	     {"api", r.api},
	     {"device", r.device},
	     {"runtime_version", r.runtime_version},
	     {"driver_version", r.driver_version}};
}

void from_json(const nlohmann::json &j, ProbeReply &r)
{
	require_object(j, "probe reply");
	if (!j.contains("state") || !j["state"].is_string())
		throw std::runtime_error("probe reply: field 'state' is missing or not a string");
	const auto state = j["state"].get<std::string>();
	bool known = false;
	for (const auto &[st, name] : kStateNames)
		if (state == name) {
			r.state = st;
			known = true;
		}
	if (!known)
		throw std::runtime_error(fmt::format("probe reply: state '{}' is unknown", state));
	r.report = j.value("report", std::string());
	r.api = j.value("api", std::string());
	r.device = j.value("device", std::string());
	r.runtime_version = j.value("runtime_version", std::string());
	r.driver_version = j.value("driver_version", std::string());
}

std::vector<std::string> child_args(const CaseRequest &r)
{
	return {kChildVerb, "case", nlohmann::json(r).dump()};
}

std::vector<std::string> child_args(const ProbeRequest &r)
{
	return {kChildVerb, "probe", nlohmann::json(r).dump()};
}

std::vector<std::string> worker_args()
{
	return {kChildVerb, "worker", "{}"};
}

std::string worker_request(const CaseRequest &r)
{
	nlohmann::json j = {{"case", r}};
	make_utf8_valid(j);
	return j.dump();
}

std::string worker_request(const ProbeRequest &r)
{
	nlohmann::json j = {{"probe", r}};
	make_utf8_valid(j);
	return j.dump();
}

WorkerRequest parse_worker_request(std::string_view line)
{
	const auto j = nlohmann::json::parse(line);
	require_object(j, "worker request");
	if (j.size() == 1 && j.contains("case"))
		return j["case"].get<CaseRequest>();
	if (j.size() == 1 && j.contains("probe"))
		return j["probe"].get<ProbeRequest>();
	throw std::runtime_error("worker request: expected one field, 'case' or 'probe'");
}

void make_utf8_valid(nlohmann::json &j)
{
	if (j.is_string()) {
		auto &s = j.get_ref<std::string &>();
		s = core::utf8_valid(s);
	} else if (j.is_array()) {
		for (auto &e : j)
			make_utf8_valid(e);
	} else if (j.is_object()) {
		nlohmann::json fixed = nlohmann::json::object();
		for (auto it = j.begin(); it != j.end(); ++it) {
			make_utf8_valid(it.value());
			fixed[core::utf8_valid(it.key())] = std::move(it.value());
		}
		j = std::move(fixed);
	}
}

void send_reply(nlohmann::json reply)
{
	make_utf8_valid(reply);
	io::write_all(io::kResultFd, reply.dump());
}

} // namespace rdnafix::validate
