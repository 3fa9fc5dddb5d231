// Open-loop UDP flows through one bottleneck under ns-3's FqCoDelQueueDisc
// or CoDelQueueDisc: the peer of validation/fq_codel_ns3.py, which builds
// and runs this program and the same scenario in tcplab.
//
// Flow i sends `size`-byte UDP payloads every interval[i] ns from start[i]
// ns (a UdpClient: its 12-byte sequence header is part of the payload)
// from node s<i> over a 100 Mbit/s, 1 ms access link to r1, the bottleneck
// r1 -> r2 (`rate` bit/s, `delay` ms, the queue disc under test on r1's
// device) and a 100 Mbit/s, 1 ms link to the sink. Every link's rate is
// raised by (IP size + 2) / IP size so that ns-3's 2-byte PPP header
// costs no time (tcplab's links carry bare IP packets here). The devices'
// own queues hold one packet (the least ns-3 allows), so the queue disc
// holds nearly everything that waits.
//
// Prints one line per flow, "flow <i> <tx packets> <rx packets>", then
// "queue <time-average packets> <drops before enqueue> <drops after
// dequeue>".

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/flow-monitor-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <sstream>

using namespace ns3;

static double g_area = 0;
static Time g_last;
static uint32_t g_len = 0;

static void
QueueLength(uint32_t, uint32_t now_len)
{
    Time now = Simulator::Now();
    g_area += (now - g_last).GetSeconds() * g_len;
    g_last = now;
    g_len = now_len;
}

static std::vector<uint64_t>
Numbers(const std::string& s)
{
    std::vector<uint64_t> out;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ','))
    {
        out.push_back(std::stoull(item));
    }
    return out;
}

int
main(int argc, char* argv[])
{
    std::string intervals = "1333333,2000000,4000000,80000000";
    std::string starts = "0,1370000,2740000,4110000";
    uint32_t size = 1000;
    double duration = 20;
    std::string qdisc = "fq-codel";
    double rate = 10e6;
    double delayMs = 20;
    uint32_t quantum = 1514;
    uint32_t mtu = 1514;
    uint32_t limit = 10240;
    CommandLine cmd;
    cmd.AddValue("intervals", "ns between a flow's packets, comma-separated", intervals);
    cmd.AddValue("starts", "each flow's first packet, ns", starts);
    cmd.AddValue("size", "UDP payload bytes", size);
    cmd.AddValue("duration", "seconds", duration);
    cmd.AddValue("qdisc", "fq-codel or codel", qdisc);
    cmd.AddValue("rate", "bottleneck bit/s", rate);
    cmd.AddValue("delay", "bottleneck one-way delay, ms", delayMs);
    cmd.AddValue("quantum", "FQ-CoDel's quantum, bytes", quantum);
    cmd.AddValue("mtu", "CoDel's MinBytes", mtu);
    cmd.AddValue("limit", "queue disc limit, packets", limit);
    cmd.Parse(argc, argv);

    std::vector<uint64_t> gap = Numbers(intervals);
    std::vector<uint64_t> start = Numbers(starts);
    uint32_t n = gap.size();
    double ppp = (size + 28.0 + 2.0) / (size + 28.0);

    Config::SetDefault("ns3::CoDelQueueDisc::MinBytes", UintegerValue(mtu));
    Config::SetDefault("ns3::DropTailQueue<Packet>::MaxSize", QueueSizeValue(QueueSize("1p")));

    NodeContainer src;
    src.Create(n);
    Ptr<Node> r1 = CreateObject<Node>();
    Ptr<Node> r2 = CreateObject<Node>();
    Ptr<Node> sink = CreateObject<Node>();
    NodeContainer all(src);
    all.Add(r1);
    all.Add(r2);
    all.Add(sink);
    InternetStackHelper stack;
    stack.Install(all);

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(100e6 * ppp))));
    access.SetChannelAttribute("Delay", TimeValue(MilliSeconds(1)));
    PointToPointHelper neck;
    neck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(rate * ppp))));
    neck.SetChannelAttribute("Delay", TimeValue(MicroSeconds(uint64_t(delayMs * 1000))));

    Ipv4AddressHelper addr;
    std::vector<Ipv4Address> srcAddr;
    for (uint32_t i = 0; i < n; i++)
    {
        NetDeviceContainer d = access.Install(src.Get(i), r1);
        std::ostringstream net;
        net << "10.1." << i + 1 << ".0";
        addr.SetBase(net.str().c_str(), "255.255.255.0");
        srcAddr.push_back(addr.Assign(d).GetAddress(0));
    }
    NetDeviceContainer bd = neck.Install(r1, r2);
    TrafficControlHelper tch;
    if (qdisc == "codel")
    {
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc",
                             "MaxSize",
                             QueueSizeValue(QueueSize(std::to_string(limit) + "p")));
    }
    else
    {
        tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc",
                             "MaxSize",
                             QueueSizeValue(QueueSize(std::to_string(limit) + "p")));
    }
    QueueDiscContainer qd = tch.Install(bd.Get(0));
    if (qdisc != "codel")
    {
        DynamicCast<FqCoDelQueueDisc>(qd.Get(0))->SetQuantum(quantum);
    }
    qd.Get(0)->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&QueueLength));
    addr.SetBase("10.2.0.0", "255.255.255.0");
    addr.Assign(bd);
    NetDeviceContainer dd = access.Install(r2, sink);
    addr.SetBase("10.3.0.0", "255.255.255.0");
    Ipv4Address sinkAddr = addr.Assign(dd).GetAddress(1);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    for (uint32_t i = 0; i < n; i++)
    {
        UdpServerHelper server(9000 + i);
        server.Install(sink).Start(Seconds(0));
        UdpClientHelper client(sinkAddr, 9000 + i);
        client.SetAttribute("MaxPackets", UintegerValue(4294967295u));
        client.SetAttribute("Interval", TimeValue(NanoSeconds(gap[i])));
        client.SetAttribute("PacketSize", UintegerValue(size));
        ApplicationContainer app = client.Install(src.Get(i));
        app.Start(NanoSeconds(start[i]));
    }

    FlowMonitorHelper fmh;
    Ptr<FlowMonitor> fm = fmh.InstallAll();
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    QueueLength(0, g_len);

    Ptr<Ipv4FlowClassifier> cls = DynamicCast<Ipv4FlowClassifier>(fmh.GetClassifier());
    for (auto& [id, st] : fm->GetFlowStats())
    {
        Ipv4FlowClassifier::FiveTuple t = cls->FindFlow(id);
        for (uint32_t i = 0; i < n; i++)
        {
            if (t.sourceAddress == srcAddr[i])
            {
                std::cout << "flow " << i << " " << st.txPackets << " " << st.rxPackets << "\n";
            }
        }
    }
    QueueDisc::Stats s = qd.Get(0)->GetStats();
    std::cout << "queue " << g_area / duration << " " << s.nTotalDroppedPacketsBeforeEnqueue << " "
              << s.nTotalDroppedPacketsAfterDequeue << "\n";
    Simulator::Destroy();
    return 0;
}
