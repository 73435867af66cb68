// Throw gate screen head (hardware/throw-line.md): sits on the gate's bottom bar (20 mm
// square tube), holds the near and far photodiodes `gap` apart, each at the bottom of a
// baffle with a `slit` at its top, so each photodiode sees only its own source line on
// the top bar `span` above. Four heads per bottom bar. Print in PETG (black), base down.
// Render: openscad -o throw_gate.stl throw_gate.scad

gap = 50;          // between the near and the far plane (the firmware's speed scale)
slit = 3;          // slit width: the plane's thickness
slit_len = 30;     // slit length, across the gate (the in-plane fan is wider than the head)
baffle = 100;      // photodiode to slit: the out-of-plane acceptance
span = 1550;       // bottom bar to top bar (0.35 m to 1.9 m)
pd_w = 5.6;        // pocket for a BPW34FS (5.4 x 4.3 x 3.2 mm)
pd_l = 4.5;
pd_h = 3.4;
pd_active = 2.7;   // its sensitive area: 2.65 x 2.65 mm
wall = 3;
tube = 20.4;       // the bottom bar, with play
$fn = 48;

// out-of-plane acceptance half-angle of one channel: from the edge of the photodiode's
// sensitive area to the slit's far edge; the other plane's source is gap / span off at the top
accept = atan((slit / 2 + pd_active / 2) / baffle);
other = atan(gap / span);
echo(str("planes ", gap, " mm apart, accept +-", round(accept * 10) / 10, " deg, other source at ",
         round(other * 10) / 10, " deg"));
assert(accept < other, "the baffle is too short: a photodiode would see the other plane's source");
assert(gap > slit + 2 * wall, "the two baffles do not fit side by side");

width = gap + slit + 2 * wall + 8;   // along the throw
depth = slit_len + 2 * wall;         // across the gate
height = baffle + pd_h + wall;

difference() {
    union() {
        translate([-width / 2, -depth / 2, 0]) cube([width, depth, height]);
        // saddle over the bottom bar
        translate([-width / 2, -depth / 2, -tube]) cube([width, wall, tube]);
        translate([-width / 2, depth / 2 - wall, -tube]) cube([width, wall, tube]);
    }
    for (x = [-gap / 2, gap / 2]) {
        // photodiode pocket, leads out through the bottom
        translate([x - pd_w / 2, -pd_l / 2, wall]) cube([pd_w, pd_l, pd_h + 0.01]);
        translate([x - 1.5, -1, -1]) cube([3, 2, wall + 2]);
        // the baffle: a slot from the photodiode up to the slit, black inside
        translate([x - slit / 2 - 1, -slit_len / 2, wall + pd_h]) cube([slit + 2, slit_len, baffle - 2]);
        translate([x - slit / 2, -slit_len / 2, wall + pd_h + baffle - 3]) cube([slit, slit_len, 4]);
    }
    // the bar
    translate([-width / 2 - 1, -tube / 2, -tube - 0.01]) cube([width + 2, tube, tube]);
    // an M4 screw through the saddle into the bar
    translate([0, 0, -tube / 2]) rotate([90, 0, 0]) cylinder(d = 4.3, h = depth + 2, center = true);
}
