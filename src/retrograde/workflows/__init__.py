"""Named end-to-end workflows (`retrograde run NAME`): `names` knows them without their
machinery (a usage error answers at once), `runner` runs one (plan, solve, verify, train,
validate), `course` plays the course reports' published figures again (`run seeds`)."""
