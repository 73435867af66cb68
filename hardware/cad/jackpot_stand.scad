// Stand for the hexagon's jackpot sensor (T20): the jackpot hole is made of six board
// corners, so its beam ring and funnel hang from this stand under the hexagon's centre
// instead of from one board (hardware/mounting.md). A collar takes the beam ring's
// screws; three legs reach the floor. Print in PETG (or mill the collar from plywood).
// Render: openscad -o jackpot_stand.stl jackpot_stand.scad

hole_d = 130;        // the central hole of the hexagon (wider than a board's big hole)
ring_wall = 12;      // as beam_ring.scad
collar_h = 6;
board_height = 300;  // playing surface above the floor
board_t = 18;
rebate = 4;          // the ring's top is this far above the boards' underside
leg_w = 20;
$fn = 96;

ring_d = hole_d + 2 * ring_wall;
collar_top = board_height - board_t + rebate - 14;  // under the ring (ring_h 14)
echo(str("collar top at ", collar_top, " mm above the floor"));

difference() {
    union() {
        translate([0, 0, collar_top - collar_h]) cylinder(d = ring_d + 20, h = collar_h);
        for (a = [0, 120, 240]) rotate([0, 0, a])
            hull() {
                translate([ring_d / 2 + 2, -leg_w / 2, collar_top - collar_h]) cube([8, leg_w, collar_h]);
                translate([ring_d / 2 + 60, -leg_w / 2, 0]) cube([leg_w, leg_w, 4]);
            }
    }
    translate([0, 0, collar_top - collar_h - 1]) cylinder(d = hole_d, h = collar_h + 2);
    for (a = [30, 150, 270])  // the ring's screw holes
        rotate([0, 0, a]) translate([hole_d / 2 + ring_wall / 2, 0, collar_top - collar_h - 1])
            cylinder(d = 3.4, h = collar_h + 2, $fn = 24);
}
