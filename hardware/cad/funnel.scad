// Funnel under a hole: 45° walls from the hole down to a 70 mm throat, then a throat
// tube carrying beam B across its centre, 80 mm under the playing surface
// (hardware/mounting.md). It screws under the beam ring. Print in PETG, wide end down.
// Render: openscad -o funnel.stl funnel.scad   (-D hole_d=90 for a small hole)

hole_d = 120;        // hole diameter
throat_d = 70;       // < 2 x the smallest palet (40 mm): a palet always covers beam B
wall = 2.4;          // wall thickness
top_z = 28;          // depth of the ring's bottom under the surface (board 18 - rebate 4 + ring 14)
beam_b_depth = 80;   // beam B under the playing surface
tube_extra = 15;     // throat tube below beam B (holds the receiver, guides palets out)
led_d = 5.3;
flange = 10;         // screw flange under the ring
$fn = 96;

cone_h = (hole_d - throat_d) / 2;               // 45°
beam_b_in_tube = beam_b_depth - top_z - cone_h;  // from the top of the throat tube
tube_h = beam_b_in_tube + tube_extra;
echo(str("beam B at ", top_z + cone_h + beam_b_in_tube, " mm under the surface"));
assert(beam_b_in_tube > led_d, "beam B would sit in the cone: lower beam_b_depth or raise top_z");

module shell() {
    // flange, cone, throat tube (solid); the inside is removed below
    translate([0, 0, tube_h + cone_h]) cylinder(d = hole_d + 2 * flange, h = 3);
    translate([0, 0, tube_h]) cylinder(d1 = throat_d + 2 * wall, d2 = hole_d + 2 * wall, h = cone_h);
    cylinder(d = throat_d + 2 * wall, h = tube_h);
}

difference() {
    shell();
    translate([0, 0, tube_h - 0.01]) cylinder(d1 = throat_d, d2 = hole_d, h = cone_h + 0.02);
    translate([0, 0, tube_h + cone_h - 0.01]) cylinder(d = hole_d, h = 4);
    translate([0, 0, -1]) cylinder(d = throat_d, h = tube_h + 1.02);
    translate([0, 0, tube_h - beam_b_in_tube]) rotate([0, 90, 0])  // beam B: emitter / receiver bores
        cylinder(d = led_d, h = throat_d + 4 * wall, center = true, $fn = 32);
    for (a = [30, 150, 270])
        rotate([0, 0, a]) translate([hole_d / 2 + flange / 2 + 1, 0, tube_h + cone_h - 1])
            cylinder(d = 3.4, h = 6, $fn = 24);
}
