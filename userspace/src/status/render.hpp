#pragma once
// Output: JSON (schema_version 1) and text.  Pure: values in, string out.
#include "findings.hpp"
#include "machine/snapshot.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rdnafix::status {

inline constexpr int kSchemaVersion = 1;

nlohmann::ordered_json to_json(const Snapshot &s, const std::vector<Finding> &findings);
std::string render_text(const Snapshot &s, const std::vector<Finding> &findings, bool colour);

// `rdnactl env`: shell lines.  shell = "sh" | "fish".
std::string render_env(const std::vector<Export> &exports, const std::string &shell);

} // namespace rdnafix::status
