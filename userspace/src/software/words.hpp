#pragma once
// The coverage report's words and JSON (schema_version 1).  Pure: the report
// in, words or JSON out; the only place coverage's enums become words.
// `rdnactl coverage` (coverage/render.hpp) and status (the Code objects
// section, the RDNA-COV findings) both use them.
#include "software/model.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::coverage {

std::string_view to_string(InstallKind k); // "pytorch", "rocm_system", ...
std::string_view to_string(FoundBy b);     // "python_option", "virtual_env", ...
std::string_view to_string(LibraryKind k); // "fatbin", "tensile_files", "miopen_db"
std::string_view to_string(FileKind k);    // "elf_with_fatbin", ...

// One line per GPU x installation with code: what `status` shows under
// "Code objects" ("gfx1031 @ 0000:03:00.0  PyTorch 2.5.1+rocm6.2: only with
// HSA_OVERRIDE_GFX_VERSION=10.3.0 (isa_safe; libtorch_hip.so has gfx1030)").
std::vector<std::string> summary_lines(const Report &r);
// One word-ish phrase for a verdict: "native", "generic (gfx10-3-generic)",
// "only with HSA_OVERRIDE_GFX_VERSION=10.3.0 (isa_safe)", "missing".
std::string verdict_phrase(const DeviceVerdict &v);
// "gfx1031 @ 0000:03:00.0", "gfx1031 (--gfx)".
std::string gpu_label(const std::string &gfx, const std::string &device);

// `files`: each library's bundles and entries and the bytes read (what the
// reader saw; `rdnactl coverage --json`).  status leaves them out: its
// goldens hold verdicts, not the reader's byte counts.
nlohmann::ordered_json to_json(const Report &r, bool files = true);

} // namespace rdnafix::coverage
