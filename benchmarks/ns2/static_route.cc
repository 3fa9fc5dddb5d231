// Static routing for ns-2.35's wireless nodes, loaded into the packaged
// `ns` at run time (Tcl's `load`), so that ns-2 can run the same static
// 802.11 chain as tcplab's `routing = "static"` (ns-2.35 itself has no
// multi-hop static routing for wireless nodes: DumbAgent is one hop only,
// and the ManualRtg name in ns-lib.tcl has no agent behind it).
//
// The agent does what ns-2's own routing agents do to a data packet and
// nothing else: a packet from this node's agents gains its IP header
// unless it is TCP's, which counts it already (AODV's rule), and a packet
// passing through loses one TTL; then it goes down to the link layer
// towards the next hop set from Tcl with `$ragent route DST NEXT`. Packets for this node go up to
// the node's port demultiplexer. A MAC failure drops the frame (no
// xmit_failure_ callback), as tcplab's static routing does.
//
// Used by validation/wifi_chain_ns2.py (`--routing static`) and
// benchmarks/wifi.py; built by benchmarks/ns2/build_static_route.sh
// against the ns-2.35 source headers (validation/ns2.py finds it).

#include <map>

#include "agent.h"
#include "classifier-port.h"
#include "ip.h"
#include "packet.h"

namespace {

// ns-2's trace names for the three drops (cmu-trace.h's DROP_RTR_*).
const char kNoRoute[] = "NRTE";
const char kLoop[] = "LOOP";
const char kTtl[] = "TTL";

class StaticRouteAgent : public Agent {
public:
	StaticRouteAgent() : Agent(PT_PING), dmux_(0) {}

	int command(int argc, const char* const* argv)
	{
		if (argc == 3 && strcmp(argv[1], "port-dmux") == 0) {
			dmux_ = (PortClassifier*)TclObject::lookup(argv[2]);
			return dmux_ ? TCL_OK : TCL_ERROR;
		}
		// The node's trace set-up hands every routing agent a trace
		// target; this one logs nothing of its own.
		if (argc == 3 && strcmp(argv[1], "tracetarget") == 0)
			return TCL_OK;
		if (argc == 4 && strcmp(argv[1], "route") == 0) {
			next_hop_[(nsaddr_t)atoi(argv[2])] = (nsaddr_t)atoi(argv[3]);
			return TCL_OK;
		}
		return Agent::command(argc, argv);
	}

	void recv(Packet* p, Handler*)
	{
		hdr_cmn* ch = hdr_cmn::access(p);
		hdr_ip* ih = hdr_ip::access(p);
		const nsaddr_t me = here_.addr_;
		const bool broadcast = (u_int32_t)ih->daddr() == IP_BROADCAST;
		if (ch->direction() == hdr_cmn::UP && (broadcast || ih->daddr() == me)) {
			dmux_->recv(p, (Handler*)0);
			return;
		}
		if (ih->saddr() == me && ch->num_forwards() == 0) {
			// TCP's segments and ACKs count their IP header already.
			if (ch->ptype() != PT_TCP && ch->ptype() != PT_ACK)
				ch->size() += IP_HDR_LEN;
		} else if (ih->saddr() == me) {
			drop(p, (char*)kLoop);
			return;
		} else if (--ih->ttl_ == 0) {
			drop(p, (char*)kTtl);
			return;
		}
		if (broadcast) {
			ch->next_hop_ = IP_BROADCAST;
		} else {
			std::map<nsaddr_t, nsaddr_t>::const_iterator r = next_hop_.find(ih->daddr());
			if (r == next_hop_.end()) {
				drop(p, (char*)kNoRoute);
				return;
			}
			ch->next_hop_ = r->second;
		}
		ch->addr_type() = NS_AF_INET;
		ch->direction() = hdr_cmn::DOWN;
		target_->recv(p, (Handler*)0);
	}

private:
	PortClassifier* dmux_;
	std::map<nsaddr_t, nsaddr_t> next_hop_;
};

class StaticRouteClass : public TclClass {
public:
	StaticRouteClass() : TclClass("Agent/StaticRoute") {}
	TclObject* create(int, const char* const*) { return new StaticRouteAgent(); }
	// The packaged ns bound its classes at start-up; this one comes later.
	void bind_now() { bind(); }
};

}  // namespace

extern "C" int Staticroute_Init(Tcl_Interp*)
{
	static StaticRouteClass* cls = 0;
	if (!cls) {
		cls = new StaticRouteClass();
		cls->bind_now();
	}
	return TCL_OK;
}
