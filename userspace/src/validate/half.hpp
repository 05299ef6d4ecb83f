#pragma once
// IEEE binary16 rounding for the CPU side (inputs of fp16 cases are rounded to
// fp16 before the reference runs, so reference and GPU see the same values).
// Uses the compiler's _Float16 (GCC >= 12 on x86-64 and arm64).
namespace rdnafix::validate {

inline float round_to_half(float f)
{
	return static_cast<float>(static_cast<_Float16>(f));
}

} // namespace rdnafix::validate
