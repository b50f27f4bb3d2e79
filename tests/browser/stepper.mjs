// Drives Debian's Chromium through the step-through of an HTML report.
//
// Usage: node tests/browser/stepper.mjs REPORT.html SCREENSHOT_DIR
//
// Opens the report of a broken submission, focuses the first step-through,
// presses the keys and clicks the buttons, and checks at several steps which
// node is ringed in each pane, what the status panel says (the window at an
// alpha-beta step) and that pruned subtrees appear dashed once pruned. Saves
// screenshots for a person to look at. Prints one line per check; exits 1 on
// the first failed one.
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [report, shots] = process.argv.slice(2);
if (!report || !shots) {
  console.error("usage: node stepper.mjs REPORT.html SCREENSHOT_DIR");
  process.exit(2);
}
mkdirSync(shots, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
let failed = false;
function check(ok, what) {
  console.log(`${ok ? "ok" : "FAILED"}: ${what}`);
  if (!ok) failed = true;
}

try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const requests = [];
  page.on("request", (request) => { if (!request.url().startsWith("file:")) requests.push(request.url()); });
  const errors = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  await page.goto(pathToFileURL(report).href);
  const stepper = page.locator("section.stepper").first();
  await stepper.scrollIntoViewIfNeeded();
  const data = JSON.parse(await stepper.locator("script.steps").textContent());
  const ringed = async (pane) =>
    stepper.locator(`.pane.${pane} g.node.now`).evaluateAll((gs) => gs.map((g) => g.getAttribute("data-id")));
  const status = async () => stepper.locator(".status").textContent();

  check((await stepper.locator(".counter").textContent()).startsWith("Step 1 of "), "opens at step 1");
  check(JSON.stringify(await ringed("reference")) === JSON.stringify([data.reference[0].id]), "the root is ringed");
  await page.screenshot({ path: `${shots}/1-first-step.png`, fullPage: false });

  await stepper.focus();
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  check((await ringed("reference"))[0] === data.reference[2].id, `→ → rings the third expected node (${data.reference[2].id})`);
  check((await ringed("yours"))[0] === data.yours[2], `and your third node (${data.yours[2]})`);
  const third = data.reference[2];
  if (data.alphabeta) {
    check((await status()).includes(`window [${third.alpha}, ${third.beta}]`), `the panel shows the window [${third.alpha}, ${third.beta}]`);
  }
  await page.keyboard.press("ArrowLeft");
  check((await ringed("reference"))[0] === data.reference[1].id, "← goes back one step");

  await page.keyboard.press("d");
  const at = data.divergence;
  check(at !== null, "the report has a divergence");
  check((await stepper.locator(".counter").textContent()).startsWith(`Step ${at + 1} of`), `D jumps to the first difference (step ${at + 1})`);
  check((await status()).includes("first step where the two differ"), "the panel says it is the first difference");
  check((await ringed("reference"))[0] === data.reference[at].id && (await ringed("yours"))[0] === data.yours[at],
    `both panes ring their own node there (${data.reference[at].id} / ${data.yours[at]})`);
  await page.screenshot({ path: `${shots}/2-first-difference.png`, fullPage: false });

  await stepper.locator('button[data-go="last"]').click();
  if (data.pruned.length) {
    const prunedId = data.pruned[0].ids[0];
    const dashed = await stepper.locator(`.pane.reference g.node.cut-now[data-id="${prunedId}"]`).count();
    check(dashed > 0 || !(await stepper.locator(`.pane.reference g.node[data-id="${prunedId}"]`).count()),
      `at the last step the pruned ${prunedId} is dashed`);
  }
  await page.screenshot({ path: `${shots}/3-last-step.png`, fullPage: false });
  await stepper.locator('button[data-go="first"]').click();
  check((await stepper.locator(".counter").textContent()).startsWith("Step 1 of"), "First goes back to step 1");
  check(requests.length === 0, `nothing is fetched (${requests.join(", ")})`);
  check(errors.length === 0, `no script errors (${errors.join("; ")})`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
