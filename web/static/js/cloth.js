// The printed cloth on the page's board: its rods and nodes, drawn here from the one geometry every part of
// the companion shares (companion/node.py): a node c1..ck sits at sum(corner(ci) * 2**(depth-i)), so each
// quadrangle encircles its parent at half the size. The server sends the board's frame only (web/board.py):
// the Super Giant board's 5461 nodes as markup weighed 444 KiB, three times what a phone's page may weigh.
const NS = "http://www.w3.org/2000/svg";
const COLOURS = "GRYB";
// Each colour's corner of a quadrangle, x to the right and y down: G top-left, R top-right, Y bottom-right, B bottom-left.
const CORNER = { G: [-1, -1], R: [1, -1], Y: [1, 1], B: [-1, 1] };

// A node's point on a board ``depth`` levels deep ("0" is the head node, in the middle).
export function position(name, depth) {
  let x = 0, y = 0;
  if (name === "0") return [x, y];
  for (let i = 0; i < name.length; i++) {
    const [cx, cy] = CORNER[name[i]], scale = 2 ** (depth - 1 - i);
    x += cx * scale; y += cy * scale;
  }
  return [x, y];
}

// The names level by level, each level in companion.node's order: 0; G R Y B; GG GR GY GB RG ...
function levels(depth) {
  const out = [["0"]];
  let level = [""];
  for (let d = 1; d <= depth; d++) {
    level = level.flatMap((prefix) => [...COLOURS].map((c) => prefix + c));
    out.push(level);
  }
  return out;
}

// Draw the rods and nodes into a board's frame, once (a board drawn already is left as it is).
export function drawCloth(svg) {
  const group = svg.querySelector(".nodes");
  if (!group || group.firstElementChild) return;
  const depth = +svg.dataset.depth;
  const all = levels(depth);
  const rods = [];
  all.slice(0, depth).forEach((level) => {
    for (const name of level) {
      const [px, py] = position(name, depth);
      const kids = [...COLOURS].map((c) => position(name === "0" ? c : name + c, depth));
      rods.push(`M${kids.map(([x, y]) => `${x} ${y}`).join(" ")}Z`);  // the quadrangle
      for (const [x, y] of kids) rods.push(`M${x} ${y} ${px} ${py}`);  // each corner to its parent
    }
  });
  svg.querySelector(".rods").setAttribute("d", rods.join(" "));
  // Leaves first, so the inner nodes (and their larger rims that also take a tap) lie on top. The nearest
  // leaf of an inner node is sqrt(2) away, so an inner node's radius stays below ~0.78.
  const frag = document.createDocumentFragment();
  for (let l = depth; l >= 0; l--) {
    for (const name of all[l]) {
      const [x, y] = position(name, depth);
      const c = document.createElementNS(NS, "circle");
      c.setAttribute("class", `n ${name === "0" ? "H" : name[name.length - 1]}`);
      c.dataset.n = name;
      c.setAttribute("cx", x); c.setAttribute("cy", y); c.setAttribute("r", l === depth ? 0.6 : 0.74);
      frag.appendChild(c);
    }
  }
  group.appendChild(frag);
}
