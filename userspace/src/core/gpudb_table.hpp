// rdnafix GPU database: the generated table (internal to rdnafix_core).
#pragma once

#include <cstddef>

#include "core/gpudb.hpp"

namespace rdnafix::gpudb::detail {
extern const Entry kTable[];
extern const std::size_t kTableSize;
} // namespace rdnafix::gpudb::detail
