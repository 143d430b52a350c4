"""ConsumerGroupHeartbeat (68) and ConsumerGroupDescribe (69) on the wire, standard library
only (tests/integration/cgroup_consumer_differential.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kwire import TAGS, boolean, carr, cstr, i32, uvarint  # noqa: E402


def _cint32s(vals):
    return uvarint(len(vals) + 1) + b"".join(i32(v) for v in vals)


def heartbeat(c, g, member, epoch, instance=None, rack=None, rebalance=-1, topics=None, regex=None,
              assignor=None, owned=None, ver=1):
    """owned: None or [(topic id bytes, [partitions])]. Returns a dict; assignment as
    {topic id hex: sorted partitions} or None."""
    tps = None if owned is None else carr([tid + _cint32s(ps) + TAGS for tid, ps in owned])
    body = cstr(g) + cstr(member) + i32(epoch) + cstr(instance) + cstr(rack) + i32(rebalance)
    body += (carr([cstr(t) for t in topics]) if topics is not None else uvarint(0))
    if ver >= 1:
        body += cstr(regex)
    body += cstr(assignor) + (tps if tps is not None else uvarint(0)) + TAGS
    r = c.call(68, ver, body)
    r.i32()
    d = dict(err=r.i16(), msg=r.cstr(), member=r.cstr(), epoch=r.i32(), interval=r.i32())
    present = r.i8()
    asg = None
    if present >= 0:
        asg = {}
        for tid, ps in r.carr(lambda r: (r.uuid(), r.carr(lambda r: r.i32()), r.tags())[:2]):
            asg[tid.hex()] = sorted(ps)
        r.tags()
    d["assignment"] = asg
    return d


def _assignment(r):
    out = {}
    for name, ps in r.carr(lambda r: (r.uuid(), r.cstr(), r.carr(lambda r: r.i32()), r.tags())[1:3]):
        out[name] = sorted(ps)
    r.tags()
    return out


def _member(r, ver):
    m = dict(member=r.cstr(), instance=r.cstr(), rack=r.cstr(), epoch=r.i32(), client=r.cstr(), host=r.cstr(),
             topics=r.carr(lambda r: r.cstr()), regex=r.cstr())
    m["assigned"] = _assignment(r)
    m["target"] = _assignment(r)
    if ver >= 1:
        m["type"] = r.i8()
    r.tags()
    return m


def describe(c, groups, ver=1):
    r = c.call(69, ver, carr([cstr(g) for g in groups]) + boolean(False) + TAGS)
    r.i32()

    def grp(r):
        d = dict(err=r.i16(), msg=r.cstr(), group=r.cstr(), state=r.cstr(), epoch=r.i32(), aepoch=r.i32(),
                 assignor=r.cstr())
        d["members"] = r.carr(lambda r: _member(r, ver))
        d["ops"] = r.i32()
        r.tags()
        return d
    return r.carr(grp)
