-- v24: a member's answers across rooms (Bridge.MemberUsageSince, read for
-- every question a member asks while quotas are set) are found by member
-- and time, not by a scan of every room's usage of the last day. The
-- index ends with the row id, so "ORDER BY ts, id" needs no sort either.
CREATE INDEX bridge_usage_member_ts ON bridge_usage (member, ts);
