// rdnafix core: errors as values.
//
// `Result<T, E>` holds either a value or an error; it is the return type of
// every parser and every RootFs read.  C++20 has no std::expected, so this is
// a small variant wrapper with the same spirit.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace rdnafix::core {

// The error of a pure parser: one line naming the input and what is valid,
// e.g. "HSA_OVERRIDE_GFX_VERSION 'gfx1031' is invalid: expected ...".
struct Error {
	std::string message;
};

template <class T, class E = Error> class Result {
public:
	Result(T value) : v_(std::in_place_index<0>, std::move(value)) {} // NOLINT: implicit by design
	Result(E error) : v_(std::in_place_index<1>, std::move(error)) {} // NOLINT: implicit by design

	[[nodiscard]] bool ok() const noexcept { return v_.index() == 0; }
	explicit operator bool() const noexcept { return ok(); }

	// Precondition: ok().  Throws std::logic_error otherwise (a programming
	// error, never an input error).
	[[nodiscard]] const T &value() const &
	{
		check(true);
		return std::get<0>(v_);
	}
	[[nodiscard]] T &value() &
	{
		check(true);
		return std::get<0>(v_);
	}
	[[nodiscard]] T &&value() &&
	{
		check(true);
		return std::get<0>(std::move(v_));
	}
	const T &operator*() const & { return value(); }
	const T *operator->() const { return &value(); }

	// Precondition: !ok().
	[[nodiscard]] const E &error() const &
	{
		check(false);
		return std::get<1>(v_);
	}

	[[nodiscard]] T value_or(T fallback) const & { return ok() ? std::get<0>(v_) : std::move(fallback); }

private:
	void check(bool want_value) const
	{
		if (ok() != want_value)
			throw std::logic_error(want_value ? "Result::value() on an error"
							  : "Result::error() on a value");
	}
	std::variant<T, E> v_;
};

} // namespace rdnafix::core
