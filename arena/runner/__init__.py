"""Playing matches: clocks, statuses, fault policy and replays. No transport, storage or queue imports."""
