"""Hostile neighbour discovery for hostile_frames.py's phase nd6.

Every ICMPv6 message here is built by hand (icmp6_frame) with a correct
checksum, so that what the guest must refuse is the ND content itself
and not a sum lwIP checks first. Kinds of frames (phase_nd6):

- each RFC 4861 validity check broken once, on RS, RA, NS, NA and
  Redirect: hop limit not 255, code not 0, shorter than the message,
  an option of length 0 or running past the end, a source that is not
  link-local (RA, Redirect) or unspecified where that is not allowed,
  a multicast target, a solicited NA to a multicast address. The bad RAs
  come from the real router's own address and MAC and carry a prefix
  with the autonomous flag before the bad part: taking it would give the
  guest an address;
- prefix options RFC 4862 5.5.3 says to ignore (length not 64 for SLAAC,
  preferred lifetime above valid, the link-local prefix) and prefixes no
  address can be made from (multicast, ::/64), and an RA lowering the
  real prefix's valid lifetime to seconds (the 2-hour rule keeps it);
- well-formed but hostile: RAs from 64 routers that do not exist, each
  with its own prefix, one with 30 prefixes; the real router's address
  saying its lifetime is 0; NAs claiming the guest's own addresses and
  giving the host and the router a MAC nobody has; a Redirect, in the
  real router's name, of an off-link destination to a router that does
  not exist; NSs and echo requests from 200 neighbours that do not exist.

The guest must drop the invalid ones (and count them), ignore the
prefixes, and come back to its real router and host once the flood stops.
"""
import ipaddress
import struct

from scapy.all import Ether

ALL_NODES = "ff02::1"
BAD_PREFIX = "2001:db8:bad:%x::"  # prefixes the hostile RAs advertise

# Option types and RA/NA flag bits (RFC 4861 section 4).
SLLAO, TLLAO, PREFIX, MTU = 1, 2, 3, 5
NA_R, NA_S, NA_O = 0x80, 0x40, 0x20
RS, RA, NS, NA, REDIRECT = 133, 134, 135, 136, 137


def addr(a):
    return ipaddress.IPv6Address(a).packed


def mcast_mac(dst):
    """33:33 and the low 32 bits of an IPv6 multicast address."""
    b = addr(dst)
    return "33:33:%02x:%02x:%02x:%02x" % tuple(b[12:])


def solicited_node(a):
    """ff02::1:ff00:0/104 and the low 24 bits of a (RFC 4291 2.7.1)."""
    return "ff02::1:ff%02x:%02x%02x" % tuple(addr(a)[13:])


def eui64_link_local(mac):
    b = [int(x, 16) for x in mac.split(":")]
    b[0] ^= 2
    return str(ipaddress.IPv6Address(bytes([0xfe, 0x80] + [0] * 6 + b[:3] + [0xff, 0xfe] + b[3:])))


def mac_bytes(mac):
    return bytes(int(x, 16) for x in mac.split(":"))


def icmp6_sum(src, dst, msg):
    pseudo = addr(src) + addr(dst) + struct.pack("!I3xB", len(msg), 58)
    b = pseudo + msg
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def icmp6_frame(ctx, src, dst, mtype, body, code=0, hlim=255, esrc=None):
    """Ethernet + IPv6 + ICMPv6 (type mtype, code, body after the 4-byte
    header) with the right checksum. dst multicast: its 33:33 MAC."""
    msg = struct.pack("!BBH", mtype, code, 0) + body
    msg = msg[:2] + struct.pack("!H", icmp6_sum(src, dst, msg)) + msg[4:]
    edst = mcast_mac(dst) if dst.startswith("ff") else ctx.gmac
    ip = struct.pack("!IHBB", 6 << 28, len(msg), 58, hlim) + addr(src) + addr(dst)
    return bytes(Ether(dst=edst, src=esrc or ctx.hmac, type=0x86DD)) + ip + msg


def opt_lladdr(mac, kind=SLLAO):
    return struct.pack("!BB", kind, 1) + mac_bytes(mac)


def opt_prefix(prefix, plen=64, flags=0xc0, valid=86400, preferred=14400):
    """Prefix information; flags 0x80 on-link (L), 0x40 autonomous (A)."""
    return struct.pack("!BBBBII4x", PREFIX, 4, plen, flags, valid, preferred) + addr(prefix)


def ra_body(lifetime=1800, reachable=0, retrans=0, opts=b""):
    return struct.pack("!BBHII", 64, 0, lifetime, reachable, retrans) + opts


def ns_body(target, opts=b""):
    return b"\0" * 4 + addr(target) + opts


def na_body(target, flags, opts=b""):
    return struct.pack("!B3x", flags) + addr(target) + opts


def redirect_body(target, dest, opts=b""):
    return b"\0" * 4 + addr(target) + addr(dest) + opts


def invalid_ra(ctx, n):
    """RAs from the real router's address, each with one RFC 4861 6.1.2
    check broken, and a prefix option (autonomous) that would otherwise
    become an address."""
    rll, out = ctx.rll, []

    def good_prefix():
        return opt_prefix(BAD_PREFIX % next(n))

    for hlim in (1, 64, 254):
        out.append(icmp6_frame(ctx, rll, ALL_NODES, RA, ra_body(opts=good_prefix()), hlim=hlim))
    out.append(icmp6_frame(ctx, rll, ALL_NODES, RA, ra_body(opts=good_prefix()), code=1))
    for cut in (0, 4, 11):  # shorter than the 16-byte RA
        out.append(icmp6_frame(ctx, rll, ALL_NODES, RA, ra_body()[:cut]))
    zero = struct.pack("!BB6x", 9, 0)  # an option of length 0
    out.append(icmp6_frame(ctx, rll, ALL_NODES, RA, ra_body(opts=good_prefix() + zero)))
    past = struct.pack("!BB6x", 9, 4)  # says 32 bytes, 8 are there
    out.append(icmp6_frame(ctx, rll, ALL_NODES, RA, ra_body(opts=good_prefix() + past)))
    out.append(icmp6_frame(ctx, rll, ALL_NODES, RA, ra_body(opts=good_prefix() + b"\x01")))
    for src in (ctx.hip6, "::"):  # not link-local
        out.append(icmp6_frame(ctx, src, ALL_NODES, RA, ra_body(opts=good_prefix())))
    return out


def ignored_prefixes(ctx, n):
    """Well-formed RAs from the real router whose prefix options must not
    become addresses (RFC 4862 5.5.3, and prefixes of no unicast address)."""
    rll, out = ctx.rll, []
    for plen in (0, 48, 63, 65, 96, 128):
        out.append(icmp6_frame(ctx, rll, ALL_NODES, RA, ra_body(
            opts=opt_prefix(BAD_PREFIX % next(n), plen=plen, flags=0x40))))
    out.append(icmp6_frame(ctx, rll, ALL_NODES, RA, ra_body(
        opts=opt_prefix(BAD_PREFIX % next(n), valid=100, preferred=200))))
    for prefix in ("fe80::", "ff0e::", "ff02::", "::"):
        out.append(icmp6_frame(ctx, rll, ALL_NODES, RA, ra_body(opts=opt_prefix(prefix))))
    # the real prefix, its valid lifetime cut to 5 s: the 2-hour rule
    out.append(icmp6_frame(ctx, rll, ALL_NODES, RA, ra_body(
        opts=opt_prefix(ctx.prefix6, valid=5, preferred=0))))
    return out


def fake_routers(ctx, n):
    """64 routers that do not exist (they answer no NS), each advertising
    its own prefix for SLAAC, one of them 30 prefixes; and the real
    router's address saying it is no router any more (lifetime 0)."""
    r, out = ctx.rng, []
    for i in range(64):
        mac = ctx.rmac()
        src = "fe80::bad:%x" % (i + 1)
        out.append(icmp6_frame(ctx, src, ALL_NODES, RA, ra_body(
            lifetime=9000, reachable=r.choice((0, 3600000, 0xffffffff)),
            opts=opt_lladdr(mac) + opt_prefix(BAD_PREFIX % next(n))), esrc=mac))
    many = b"".join(opt_prefix(BAD_PREFIX % next(n)) for _ in range(30))
    out.append(icmp6_frame(ctx, "fe80::bad:ffff", ALL_NODES, RA, ra_body(opts=many)))
    out.append(icmp6_frame(ctx, ctx.rll, ALL_NODES, RA, ra_body(lifetime=0)))
    return out


def invalid_ns_na(ctx):
    """NS and NA with each RFC 4861 7.1.1 / 7.1.2 check broken."""
    g, sn, src, out = ctx.gip6, solicited_node(ctx.gip6), ctx.hip6, []
    sllao = opt_lladdr(ctx.hmac)
    for mtype, body in ((NS, ns_body(g, sllao)), (NA, na_body(src, NA_S | NA_O,
                                                                 opt_lladdr(ctx.rmac(), TLLAO)))):
        out.append(icmp6_frame(ctx, src, g, mtype, body, hlim=64))
        out.append(icmp6_frame(ctx, src, g, mtype, body, code=1))
        out.append(icmp6_frame(ctx, src, g, mtype, body[:20]))  # shorter than 24
        zero, past = struct.pack("!BB6x", 1, 0), struct.pack("!BB6x", 1, 3)
        out.append(icmp6_frame(ctx, src, g, mtype, body[:24] + zero))  # option length 0
        out.append(icmp6_frame(ctx, src, g, mtype, body[:24] + past))  # 24 bytes, 8 there
    out.append(icmp6_frame(ctx, src, g, NS, ns_body("ff02::1:ff00:2", sllao)))  # multicast target
    out.append(icmp6_frame(ctx, src, g, NA, na_body("ff02::1", NA_S)))
    out.append(icmp6_frame(ctx, "::", sn, NS, ns_body(g, sllao)))  # DAD with a SLLAO
    out.append(icmp6_frame(ctx, "::", g, NS, ns_body(g)))  # DAD not to solicited-node
    out.append(icmp6_frame(ctx, ctx.rll, ALL_NODES, NA,  # solicited, to all nodes
                           na_body(ctx.rll, NA_R | NA_S | NA_O, opt_lladdr(ctx.rmac(), TLLAO))))
    for mtype, body in ((RS, b"\0" * 4 + sllao), (RS, b"\0" * 2)):  # hosts ignore RS
        out.append(icmp6_frame(ctx, "::", "ff02::2", mtype, body))
    out.append(icmp6_frame(ctx, src, "ff02::2", RS, b"\0" * 4 + sllao, hlim=64))
    return out


def lying_na(ctx):
    """Well-formed NAs that lie: the guest's own addresses claimed by
    someone else (to all nodes, as a DAD answer would come), the host and
    the router given a MAC nobody has."""
    out = []
    for target in (ctx.gip6, ctx.gll):
        out.append(icmp6_frame(ctx, ctx.hip6, ALL_NODES, NA,
                               na_body(target, NA_O, opt_lladdr(ctx.rmac(), TLLAO))))
    for target in (ctx.hip6, ctx.rll):
        nobody = ctx.rmac()
        out.append(icmp6_frame(ctx, target, ctx.gip6, NA,
                               na_body(target, NA_R * (target == ctx.rll) | NA_S | NA_O,
                                       opt_lladdr(nobody, TLLAO)), esrc=nobody))
        out.append(icmp6_frame(ctx, target, ALL_NODES, NA,
                               na_body(target, NA_O, opt_lladdr(nobody, TLLAO)), esrc=nobody))
    return out


def redirects(ctx):
    """Redirects with each RFC 4861 8.1 check broken, and one valid in
    form: the real router's address sending the off-link destination to a
    router that does not exist (with a MAC nobody has)."""
    g, rll, off, out = ctx.gip6, ctx.rll, ctx.offlink6, []
    body = redirect_body("fe80::99", off, opt_lladdr(ctx.rmac(), TLLAO))
    out.append(icmp6_frame(ctx, ctx.hip6, g, REDIRECT, body))  # not link-local
    out.append(icmp6_frame(ctx, rll, g, REDIRECT, body, hlim=64))
    out.append(icmp6_frame(ctx, rll, g, REDIRECT, body, code=1))
    out.append(icmp6_frame(ctx, rll, g, REDIRECT, body[:36]))  # shorter than 40
    out.append(icmp6_frame(ctx, rll, g, REDIRECT, body[:36] + b"\0" * 4 + b"\x02\x00" + b"\0" * 6))
    out.append(icmp6_frame(ctx, rll, g, REDIRECT, body[:40] + b"\x02\x05" + b"\0" * 6))
    out.append(icmp6_frame(ctx, rll, g, REDIRECT, redirect_body("ff02::1", off)))
    out.append(icmp6_frame(ctx, rll, g, REDIRECT, redirect_body("fe80::99", "ff0e::1")))
    out.append(icmp6_frame(ctx, rll, g, REDIRECT, body))
    return out


def fake_neighbours(ctx):
    """200 neighbours that do not exist: NSs for the guest's address (it
    learns each and answers) and echo requests (it resolves each)."""
    r, out = ctx.rng, []
    for i in range(200):
        mac = ctx.rmac()
        src = ("%s%x" % (ctx.prefix6, r.randrange(2, 0xffff)) if i % 2
               else "fe80::%x:%x" % (r.randrange(1, 0xffff), r.randrange(1, 0xffff)))
        if i % 4 < 2:
            out.append(icmp6_frame(ctx, src, solicited_node(ctx.gip6), NS,
                                   ns_body(ctx.gip6, opt_lladdr(mac)), esrc=mac))
        else:
            echo = struct.pack("!HH", r.randrange(65536), i) + b"e" * 24
            out.append(icmp6_frame(ctx, src, ctx.gip6, 128, echo, hlim=64, esrc=mac))
    return out


def phase_nd6(ctx):
    """All of the above, mixed (see the module comment)."""
    counter = iter(range(1, 1 << 16))
    out = (invalid_ra(ctx, counter) + ignored_prefixes(ctx, counter) +
           fake_routers(ctx, counter) + invalid_ns_na(ctx) + lying_na(ctx) +
           redirects(ctx) + fake_neighbours(ctx))
    ctx.rng.shuffle(out)
    return out
