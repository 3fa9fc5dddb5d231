#
# nodes: 10, pause: 0.00, max speed: 10.00, max x: 800.00, max y: 300.00
#
$node_(0) set X_ 508.298328361952
$node_(0) set Y_ 182.726891969143
$node_(0) set Z_ 0.000000000000
$node_(1) set X_ 311.886011453413
$node_(1) set Y_ 176.642320361362
$node_(1) set Z_ 0.000000000000
$node_(2) set X_ 557.215625024599
$node_(2) set Y_ 138.024057636271
$node_(2) set Z_ 0.000000000000
$node_(3) set X_ 758.375031161589
$node_(3) set Y_ 168.411504926531
$node_(3) set Z_ 0.000000000000
$node_(4) set X_ 275.552465886556
$node_(4) set Y_ 151.819173637402
$node_(4) set Z_ 0.000000000000
$node_(5) set X_ 660.323033795504
$node_(5) set Y_ 132.941130421067
$node_(5) set Z_ 0.000000000000
$node_(6) set X_ 272.249759321089
$node_(6) set Y_ 127.524234360326
$node_(6) set Z_ 0.000000000000
$node_(7) set X_ 598.917713150122
$node_(7) set Y_ 129.796592797547
$node_(7) set Z_ 0.000000000000
$node_(8) set X_ 445.876676389563
$node_(8) set Y_ 160.336419602385
$node_(8) set Z_ 0.000000000000
$node_(9) set X_ 573.293987299583
$node_(9) set Y_ 118.753652624031
$node_(9) set Z_ 0.000000000000
$ns_ at 0.000000000000 "$node_(0) setdest 490.904397635747 149.500959272543 4.622862371978"
$ns_ at 0.000000000000 "$node_(1) setdest 705.965773491394 298.075065249487 8.314408711017"
$ns_ at 0.000000000000 "$node_(2) setdest 709.382628545069 261.338600436791 2.738833536784"
$ns_ at 0.000000000000 "$node_(3) setdest 794.366036827708 140.229560404026 2.376169032474"
$ns_ at 0.000000000000 "$node_(4) setdest 790.309828423067 27.888003736898 9.046264493750"
$ns_ at 0.000000000000 "$node_(5) setdest 182.835732686760 187.137872149394 4.053143920157"
$ns_ at 0.000000000000 "$node_(6) setdest 141.098475583941 188.542649153823 8.852440051573"
$ns_ at 0.000000000000 "$node_(7) setdest 759.375611401658 278.920717610863 8.174272095842"
$ns_ at 0.000000000000 "$node_(8) setdest 412.603825009799 225.648844133820 1.836011028357"
$ns_ at 0.000000000000 "$node_(9) setdest 347.411079206854 113.827471056980 4.326859344725"
$god_ set-dist 0 1 1
$god_ set-dist 0 2 1
$god_ set-dist 0 3 2
$god_ set-dist 0 4 1
$god_ set-dist 0 5 1
$god_ set-dist 0 6 1
$god_ set-dist 0 7 1
$god_ set-dist 0 8 1
$god_ set-dist 0 9 1
$god_ set-dist 1 2 1
$god_ set-dist 1 3 2
$god_ set-dist 1 4 1
$god_ set-dist 1 5 2
$god_ set-dist 1 6 1
$god_ set-dist 1 7 2
$god_ set-dist 1 8 1
$god_ set-dist 1 9 2
$god_ set-dist 2 3 1
$god_ set-dist 2 4 2
$god_ set-dist 2 5 1
$god_ set-dist 2 6 2
$god_ set-dist 2 7 1
$god_ set-dist 2 8 1
$god_ set-dist 2 9 1
$god_ set-dist 3 4 3
$god_ set-dist 3 5 1
$god_ set-dist 3 6 3
$god_ set-dist 3 7 1
$god_ set-dist 3 8 2
$god_ set-dist 3 9 1
$god_ set-dist 4 5 2
$god_ set-dist 4 6 1
$god_ set-dist 4 7 2
$god_ set-dist 4 8 1
$god_ set-dist 4 9 2
$god_ set-dist 5 6 2
$god_ set-dist 5 7 1
$god_ set-dist 5 8 1
$god_ set-dist 5 9 1
$god_ set-dist 6 7 2
$god_ set-dist 6 8 1
$god_ set-dist 6 9 2
$god_ set-dist 7 8 1
$god_ set-dist 7 9 1
$god_ set-dist 8 9 1
$ns_ at 1.563213896880 "$god_ set-dist 1 9 1"
$ns_ at 1.791342919977 "$god_ set-dist 0 6 2"
$ns_ at 3.738017059460 "$god_ set-dist 3 4 2"
$ns_ at 3.738017059460 "$god_ set-dist 4 9 1"
$ns_ at 4.755156086786 "$god_ set-dist 2 4 1"
$ns_ at 8.112611310740 "$node_(0) setdest 303.400976748067 168.776678202103 6.174925662201"
$ns_ at 8.859925279570 "$god_ set-dist 1 5 1"
$ns_ at 10.058925793093 "$god_ set-dist 3 9 2"
$ns_ at 10.521198644615 "$god_ set-dist 4 5 1"
$ns_ at 10.586663416380 "$god_ set-dist 6 7 3"
$ns_ at 10.586663416380 "$god_ set-dist 6 8 2"
$ns_ at 13.039162052539 "$god_ set-dist 1 6 2"
$ns_ at 14.036587361833 "$god_ set-dist 7 8 2"
$ns_ at 14.245102826494 "$god_ set-dist 0 6 16777215"
$ns_ at 14.245102826494 "$god_ set-dist 1 6 16777215"
$ns_ at 14.245102826494 "$god_ set-dist 2 6 16777215"
$ns_ at 14.245102826494 "$god_ set-dist 3 6 16777215"
$ns_ at 14.245102826494 "$god_ set-dist 4 6 16777215"
$ns_ at 14.245102826494 "$god_ set-dist 5 6 16777215"
$ns_ at 14.245102826494 "$god_ set-dist 6 7 16777215"
$ns_ at 14.245102826494 "$god_ set-dist 6 8 16777215"
$ns_ at 14.245102826494 "$god_ set-dist 6 9 16777215"
$ns_ at 15.202409224796 "$god_ set-dist 0 7 2"
$ns_ at 16.340238362818 "$node_(6) setdest 172.838173795105 284.131600661057 5.665964928577"
$ns_ at 18.888811459097 "$god_ set-dist 7 9 2"
$ns_ at 19.074732397046 "$god_ set-dist 1 7 1"
$ns_ at 19.237631291420 "$node_(3) setdest 55.786025059291 65.433059192746 6.800506432658"
$ns_ at 23.786000798422 "$god_ set-dist 0 6 1"
$ns_ at 23.786000798422 "$god_ set-dist 1 6 2"
$ns_ at 23.786000798422 "$god_ set-dist 2 6 2"
$ns_ at 23.786000798422 "$god_ set-dist 3 6 3"
$ns_ at 23.786000798422 "$god_ set-dist 4 6 2"
$ns_ at 23.786000798422 "$god_ set-dist 5 6 2"
$ns_ at 23.786000798422 "$god_ set-dist 6 7 3"
$ns_ at 23.786000798422 "$god_ set-dist 6 8 2"
$ns_ at 23.786000798422 "$god_ set-dist 6 9 2"
$ns_ at 25.832104943208 "$god_ set-dist 3 4 1"
$ns_ at 26.235309238808 "$god_ set-dist 1 3 1"
$ns_ at 26.798006666345 "$node_(7) setdest 452.406207961145 153.679589104223 8.292259738033"
$ns_ at 28.092055142561 "$god_ set-dist 0 2 2"
$ns_ at 28.092055142561 "$god_ set-dist 2 6 3"
$ns_ at 31.284748593440 "$god_ set-dist 4 7 1"
$ns_ at 32.750460950542 "$god_ set-dist 0 1 2"
$ns_ at 32.750460950542 "$god_ set-dist 1 6 3"
$ns_ at 33.500684061118 "$god_ set-dist 0 4 2"
$ns_ at 33.500684061118 "$god_ set-dist 4 6 3"
$ns_ at 34.116678000155 "$node_(6) setdest 354.450079269152 128.894703045976 3.018182806620"
$ns_ at 35.094723375362 "$god_ set-dist 1 6 2"
$ns_ at 35.094723375362 "$god_ set-dist 2 6 2"
$ns_ at 35.094723375362 "$god_ set-dist 4 6 2"
$ns_ at 35.094723375362 "$god_ set-dist 6 8 1"
$ns_ at 37.412320160236 "$god_ set-dist 1 9 2"
$ns_ at 38.286613002118 "$god_ set-dist 4 6 3"
$ns_ at 38.286613002118 "$god_ set-dist 4 8 2"
$ns_ at 38.637935507651 "$node_(0) setdest 296.608956925260 137.882402557773 7.673133000734"
$ns_ at 38.656950824055 "$god_ set-dist 2 9 2"
$ns_ at 39.401342935533 "$god_ set-dist 6 7 2"
$ns_ at 39.401342935533 "$god_ set-dist 7 8 1"
$ns_ at 39.923156138442 "$node_(8) setdest 564.338386753198 252.896310273193 8.827775501687"
$ns_ at 40.787119688112 "$god_ set-dist 3 6 2"
$ns_ at 40.787119688112 "$god_ set-dist 3 8 1"
$ns_ at 41.351819579184 "$god_ set-dist 4 9 2"
$ns_ at 41.570887846920 "$god_ set-dist 3 9 1"
$ns_ at 42.452772557234 "$god_ set-dist 6 9 1"
$ns_ at 42.760380561187 "$node_(0) setdest 663.663794575741 113.483122411298 6.377023448334"
$ns_ at 43.210276247645 "$god_ set-dist 1 6 3"
$ns_ at 43.210276247645 "$god_ set-dist 2 6 3"
$ns_ at 43.210276247645 "$god_ set-dist 6 7 3"
$ns_ at 43.210276247645 "$god_ set-dist 6 8 2"
$ns_ at 46.595734027011 "$god_ set-dist 1 5 2"
$ns_ at 47.737385629942 "$god_ set-dist 0 4 3"
$ns_ at 47.737385629942 "$god_ set-dist 4 5 2"
$ns_ at 48.229157321820 "$god_ set-dist 6 7 2"
$ns_ at 48.229157321820 "$god_ set-dist 7 9 1"
$ns_ at 49.304063225609 "$god_ set-dist 1 4 2"
$ns_ at 49.546073651013 "$god_ set-dist 0 3 1"
$ns_ at 49.546073651013 "$god_ set-dist 0 4 2"
$ns_ at 49.596413332500 "$node_(1) setdest 20.776907988264 59.111857855522 5.391599333718"
$ns_ at 49.931244099974 "$god_ set-dist 0 7 1"
$ns_ at 52.217231986622 "$node_(9) setdest 127.514945558065 154.048382593799 4.790455127697"
$ns_ at 52.648871003438 "$god_ set-dist 2 6 2"
$ns_ at 52.648871003438 "$god_ set-dist 5 6 1"
$ns_ at 53.694263057999 "$god_ set-dist 4 7 2"
$ns_ at 55.174417853098 "$god_ set-dist 8 9 2"
$ns_ at 55.477314279144 "$god_ set-dist 2 5 2"
$ns_ at 55.477314279144 "$god_ set-dist 2 6 3"
$ns_ at 56.859517300770 "$god_ set-dist 0 4 3"
$ns_ at 56.859517300770 "$god_ set-dist 3 4 2"
$ns_ at 56.859517300770 "$god_ set-dist 4 5 3"
$ns_ at 56.859517300770 "$god_ set-dist 4 6 4"
$ns_ at 56.859517300770 "$god_ set-dist 4 9 3"
$ns_ at 57.386401415256 "$node_(8) setdest 127.888017567039 27.911683452695 1.466332169947"
$ns_ at 58.528671333640 "$node_(4) setdest 366.822882997608 136.280259384376 2.371237562787"
$ns_ at 63.012562359968 "$god_ set-dist 1 6 2"
$ns_ at 63.012562359968 "$god_ set-dist 2 6 2"
$ns_ at 63.012562359968 "$god_ set-dist 4 6 3"
$ns_ at 63.012562359968 "$god_ set-dist 6 7 1"
$ns_ at 63.696988428434 "$god_ set-dist 0 1 1"
$ns_ at 64.572831175363 "$god_ set-dist 2 3 2"
$ns_ at 64.572831175363 "$god_ set-dist 3 4 3"
$ns_ at 65.294252421915 "$god_ set-dist 2 6 3"
$ns_ at 65.294252421915 "$god_ set-dist 2 7 2"
$ns_ at 65.294252421915 "$god_ set-dist 2 9 3"
$ns_ at 65.294252421915 "$god_ set-dist 4 6 4"
$ns_ at 65.294252421915 "$god_ set-dist 4 7 3"
$ns_ at 65.294252421915 "$god_ set-dist 4 9 4"
$ns_ at 66.688690721758 "$god_ set-dist 1 5 1"
$ns_ at 66.779285511509 "$node_(7) setdest 64.712284659072 235.461582866500 9.369630240575"
$ns_ at 66.947655471731 "$god_ set-dist 3 6 1"
$ns_ at 71.512320485096 "$node_(2) setdest 162.434374956961 104.813249875129 2.401394522630"
$ns_ at 73.756762355951 "$god_ set-dist 0 2 1"
$ns_ at 73.756762355951 "$god_ set-dist 0 4 2"
$ns_ at 73.756762355951 "$god_ set-dist 2 6 2"
$ns_ at 73.756762355951 "$god_ set-dist 2 9 2"
$ns_ at 73.756762355951 "$god_ set-dist 4 6 3"
$ns_ at 73.756762355951 "$god_ set-dist 4 9 3"
$ns_ at 73.932768053844 "$god_ set-dist 0 9 2"
$ns_ at 73.932768053844 "$god_ set-dist 2 9 3"
$ns_ at 73.932768053844 "$god_ set-dist 4 9 4"
$ns_ at 75.517166802881 "$god_ set-dist 0 6 2"
$ns_ at 75.517166802881 "$god_ set-dist 2 6 3"
$ns_ at 75.517166802881 "$god_ set-dist 4 6 4"
$ns_ at 76.797299002594 "$god_ set-dist 0 4 1"
$ns_ at 76.797299002594 "$god_ set-dist 3 4 2"
$ns_ at 76.797299002594 "$god_ set-dist 4 5 2"
$ns_ at 76.797299002594 "$god_ set-dist 4 6 3"
$ns_ at 76.797299002594 "$god_ set-dist 4 7 2"
$ns_ at 76.797299002594 "$god_ set-dist 4 9 3"
$ns_ at 82.545766351993 "$god_ set-dist 0 7 2"
$ns_ at 82.545766351993 "$god_ set-dist 4 7 3"
$ns_ at 83.150538086603 "$god_ set-dist 2 6 2"
$ns_ at 83.150538086603 "$god_ set-dist 6 8 1"
$ns_ at 83.827103765168 "$god_ set-dist 1 6 1"
$ns_ at 84.735631658800 "$god_ set-dist 0 5 2"
$ns_ at 84.735631658800 "$god_ set-dist 4 5 3"
$ns_ at 85.385871734111 "$god_ set-dist 7 8 2"
$ns_ at 86.550171771593 "$god_ set-dist 1 7 2"
$ns_ at 86.550171771593 "$god_ set-dist 2 7 3"
$ns_ at 87.493862358724 "$god_ set-dist 0 3 2"
$ns_ at 87.493862358724 "$god_ set-dist 0 7 3"
$ns_ at 87.493862358724 "$god_ set-dist 0 9 3"
$ns_ at 87.493862358724 "$god_ set-dist 3 4 3"
$ns_ at 87.493862358724 "$god_ set-dist 4 7 4"
$ns_ at 87.493862358724 "$god_ set-dist 4 9 4"
$ns_ at 90.255534738479 "$god_ set-dist 3 8 2"
$ns_ at 97.847592975964 "$god_ set-dist 5 8 2"
$ns_ at 98.881743639447 "$node_(9) setdest 790.093455728944 237.909476385725 6.007041158030"
#
# Destination Unreachables: 9
#
# Route Changes: 132
#
# Link Changes: 61
#
# Node | Route Changes | Link Changes
#    0 |            23 |           16
#    1 |            19 |           13
#    2 |            23 |            7
#    3 |            18 |           11
#    4 |            45 |           14
#    5 |            14 |            9
#    6 |            58 |           14
#    7 |            26 |           14
#    8 |            14 |           12
#    9 |            24 |           12
#
