/*
 * status.c — names of libchronoid's status codes (cid_strerror).
 * Short lower-case phrases, suitable after "chronoid: ".
 */
#include "chronoid.h"

const char *
cid_strerror(int status)
{
	switch (status)
	{
		case CID_OK:
			return "ok";
		case CID_WCLOCK_BEHIND:
			return "clock behind the last tick (running ahead)";
		case CID_WTICK_BORROWED:
			return "sequence exhausted (borrowed a future tick)";
		case CID_EINVAL:
			return "invalid argument";
		case CID_ENODE:
			return "node outside the layout's range";
		case CID_ELAYOUT:
			return "invalid snowflake layout";
		case CID_ESYNTAX:
			return "invalid character";
		case CID_ELENGTH:
			return "wrong length";
		case CID_EOVERFLOW:
			return "value does not fit the format";
		case CID_ETIME_RANGE:
			return "time outside the format's range";
		case CID_ECLOCK_BACKWARDS:
			return "clock moved backwards (fail policy)";
		case CID_EDRIFT:
			return "clock behind by more than the allowed drift";
		case CID_EWAIT_TIMEOUT:
			return "clock still behind after the allowed wait";
		case CID_EEXHAUSTED:
			return "sequence exhausted and borrow limit reached";
		case CID_EMONOTONIC_OVERFLOW:
			return "monotonic random part overflowed within one millisecond";
		case CID_ERANDOM:
			return "random source failed";
		case CID_ECLOCK:
			return "clock could not be read";
		case CID_ENOTIME:
			return "id carries no timestamp";
		case CID_EUNKNOWN:
			return "not a known id form";
		case CID_EAGAIN:
			return "must wait for the clock";
		case CID_ENODE_HELD:
			return "node number already claimed on this host";
		case CID_ECLAIM:
			return "node claim directory or lock file unusable";
		case CID_EFORKED:
			return "node claim belongs to the parent process (after fork)";
	}
	return "unknown status";
}
