"""Set the finalized feature transaction.version of a broker (UpdateFeatures v1; an upgrade
or a safe downgrade), as `kafka-features.sh upgrade|downgrade --feature transaction.version=N`
does. test_libgregor_txn.sh uses it to run libgregor's transactional producer against
transaction version 1.
    python3 txn_features.py BOOTSTRAP LEVEL
Prints "transaction.version=LEVEL" or the error; exit status 0 on success."""
import sys

import kwire
from kwire import TAGS, boolean, carr, cstr, i8, i16, i32


def main():
    boot, level = sys.argv[1], int(sys.argv[2])
    c = kwire.Conn(boot)
    for upgrade_type in (1, 2):  # UPGRADE, else SAFE_DOWNGRADE
        body = i32(30000) + carr([("transaction.version", level, upgrade_type)],
                                 lambda u: cstr(u[0]) + i16(u[1]) + i8(u[2]) + TAGS)
        r = c.call(57, 1, body + boolean(False) + TAGS)
        r.i32()
        err, msg = r.i16(), r.cstr()
        if err == 0:
            print("transaction.version=%d" % level)
            return 0
    print("UpdateFeatures failed: error %d %s" % (err, msg))
    return 1


if __name__ == "__main__":
    sys.exit(main())
