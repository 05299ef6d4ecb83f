#include "io/sqlite.hpp"

#include <stdexcept>

#include <SQLiteCpp/Transaction.h>

namespace rdnafix::io::sqlite {

SQLite::Database open(const std::string &path)
{
	SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, 5000);
	db.exec("PRAGMA foreign_keys = ON");
	return db;
}

int user_version(SQLite::Database &db)
{
	return db.execAndGet("PRAGMA user_version").getInt();
}

void set_user_version(SQLite::Database &db, int version)
{
	db.exec("PRAGMA user_version = " + std::to_string(version));
}

int migrate(SQLite::Database &db, const std::vector<std::string> &steps)
{
	const int from = user_version(db);
	if (from > int(steps.size()))
		throw std::invalid_argument("database schema version " + std::to_string(from) + " is newer than " +
					    std::to_string(steps.size()));
	for (int v = from; v < int(steps.size()); ++v) {
		SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
		db.exec(steps[std::size_t(v)]);
		set_user_version(db, v + 1);
		tx.commit();
	}
	return from;
}

void bind(SQLite::Statement &st, int index, const std::optional<double> &v)
{
	if (v)
		st.bind(index, *v);
	else
		st.bind(index);
}

std::optional<double> optional_real(const SQLite::Column &c)
{
	if (c.isNull())
		return std::nullopt;
	return c.getDouble();
}

} // namespace rdnafix::io::sqlite
