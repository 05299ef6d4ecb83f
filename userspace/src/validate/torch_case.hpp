#pragma once
// --torch: a child python3 runs torch.nn.functional.conv2d on the GPU (MIOpen /
// cuDNN) and on the CPU (float64) and reports error figures; rdnactl decides.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "result.hpp"

namespace rdnafix::validate {

const std::string &torch_script(); // the embedded Python program
// argv for the python child: python3 -c <script> <result fd> <shapes json> <inject 0|1>
std::vector<std::string> torch_args(bool inject_error);
// The shapes the script runs (a subset of the conv cases), as JSON.
nlohmann::json torch_shapes();
// Pure: the verdict on what the script reported (status "measured" -> pass/fail by
// the documented tolerances; "skip"/"error" pass through).
CaseResult judge_torch(const CaseResult &reported);

} // namespace rdnafix::validate
