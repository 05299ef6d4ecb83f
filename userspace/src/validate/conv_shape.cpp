#include "conv_shape.hpp"

#include <fmt/format.h>

namespace rdnafix::validate {

const char *dtype_name(DType t)
{
	return t == DType::f16 ? "f16" : "f32";
}

int ConvShape::p() const
{
	return (h + 2 * pad_h - dil_h * (r - 1) - 1) / stride_h + 1;
}

int ConvShape::q() const
{
	return (w + 2 * pad_w - dil_w * (s - 1) - 1) / stride_w + 1;
}

std::size_t ConvShape::x_elems() const
{
	return std::size_t(n) * c * h * w;
}

std::size_t ConvShape::w_elems() const
{
	return std::size_t(k) * (c / groups) * r * s;
}

std::size_t ConvShape::y_elems() const
{
	return std::size_t(n) * k * p() * q();
}

int ConvShape::reduction() const
{
	return (c / groups) * r * s;
}

double ConvShape::flops() const
{
	return 2.0 * double(y_elems()) * reduction();
}

double ConvShape::min_bytes(DType t) const
{
	const double es = t == DType::f16 ? 2.0 : 4.0;
	return es * double(x_elems() + w_elems() + y_elems());
}

std::string ConvShape::check() const
{
	struct Field {
		const char *name;
		int v;
		int min;
	};
	const Field fields[] = {{"n", n, 1},
				{"c", c, 1},
				{"h", h, 1},
				{"w", w, 1},
				{"k", k, 1},
				{"r", r, 1},
				{"s", s, 1},
				{"stride_h", stride_h, 1},
				{"stride_w", stride_w, 1},
				{"pad_h", pad_h, 0},
				{"pad_w", pad_w, 0},
				{"dil_h", dil_h, 1},
				{"dil_w", dil_w, 1},
				{"groups", groups, 1}};
	for (const auto &f : fields)
		if (f.v < f.min)
			return fmt::format("conv2d: {} = {} is invalid (must be >= {})", f.name, f.v, f.min);
	if (c % groups != 0 || k % groups != 0)
		return fmt::format("conv2d: groups = {} must divide both c = {} and k = {}", groups, c, k);
	if (p() < 1 || q() < 1)
		return fmt::format("conv2d: output would be {}x{}: the {}x{} input with padding {},{} is smaller "
				   "than the dilated {}x{} filter",
				   p(), q(), h, w, pad_h, pad_w, dil_h * (r - 1) + 1, dil_w * (s - 1) + 1);
	return {};
}

std::string ConvShape::describe() const
{
	return fmt::format(
		"n{} c{} {}x{} -> k{} {}x{} s{} p{} d{} g{} (out {}x{})", n, c, h, w, k, r, s,
		stride_h == stride_w ? fmt::format("{}", stride_h) : fmt::format("{},{}", stride_h, stride_w),
		pad_h == pad_w ? fmt::format("{}", pad_h) : fmt::format("{},{}", pad_h, pad_w),
		dil_h == dil_w ? fmt::format("{}", dil_h) : fmt::format("{},{}", dil_h, dil_w), groups, p(), q());
}

} // namespace rdnafix::validate
