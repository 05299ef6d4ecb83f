#pragma once
// Each subcommand lives in its own component and registers itself here.
// A registration adds a CLI11 subcommand whose callback stores the exit code
// in *rc (0 ok, 1 findings/failures, 2 could not run).
#include <CLI/CLI.hpp>

namespace rdnafix {
void add_status_command(CLI::App &app, int *rc);
void add_env_command(CLI::App &app, int *rc);
void add_validate_command(CLI::App &app, int *rc);
void add_history_command(CLI::App &app, int *rc);
void add_config_command(CLI::App &app, int *rc);
void add_fix_command(CLI::App &app, int *rc);
void add_explain_command(CLI::App &app, int *rc);
void add_coverage_command(CLI::App &app, int *rc);
void add_kernel_check_command(CLI::App &app, int *rc);
void add_report_command(CLI::App &app, int *rc);
} // namespace rdnafix
