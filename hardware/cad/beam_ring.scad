// Beam A ring: glued under a hole, holds the curtain of IR emitters on one side and
// their receivers facing them (hardware/mounting.md). Print in PETG, top face down.
// The ring sits in a `rebate` routed into the board's underside, so the beams run
// `beam_depth` under the playing surface (20 mm: a palet must be fully in the hole).
// Render: openscad -o beam_ring.stl beam_ring.scad   (-D hole_d=90 -D pairs=2 for a small hole)

hole_d = 120;      // hole diameter (mm): big 120, small 90
board_t = 18;      // board top thickness
rebate = 4;        // depth routed into the underside around the hole for the ring
beam_depth = 20;   // beam A under the playing surface
wall = 12;         // ring wall (holds 5 mm LEDs with their leads)
ring_h = 14;       // ring height
pairs = 3;         // beam pairs across the hole: 3 for 120 mm, 2 for 90 mm
pitch = 25;        // distance between parallel beams
led_d = 5.3;       // bore for a 5 mm IR LED / receiver (Adafruit 2168)
screw_d = 3.4;     // M3 / 3.5 mm wood screws, 3 around the ring
$fn = 96;

beam_z = ring_h - (beam_depth - (board_t - rebate));  // bore centre above the ring's bottom
echo(str("beam A at ", board_t - rebate + ring_h - beam_z, " mm under the surface"));
assert(beam_z - led_d / 2 > 1 && beam_z + led_d / 2 < ring_h - 1, "the LED bore does not fit the ring");

difference() {
    cylinder(d = hole_d + 2 * wall, h = ring_h);
    translate([0, 0, -1]) cylinder(d = hole_d, h = ring_h + 2);
    for (i = [0 : pairs - 1]) {
        y = (i - (pairs - 1) / 2) * pitch;
        translate([0, y, beam_z]) rotate([0, 90, 0])
            cylinder(d = led_d, h = hole_d + 2 * wall + 2, center = true, $fn = 32);
    }
    for (a = [30, 150, 270])  // screw holes, clear of the beams
        rotate([0, 0, a]) translate([hole_d / 2 + wall / 2, 0, -1]) cylinder(d = screw_d, h = ring_h + 2, $fn = 24);
    translate([-hole_d / 2 - wall - 1, -pairs * pitch / 2, -1])  // cable channel under the emitters
        cube([wall / 2, pairs * pitch, 3]);
}
