// train/greedy.js: a trained model generating its answer on the page (the
// copy, or the reversal), the way Kazemnejad et al. 2023 decode: from [BOS,
// s_1..s_n, SEP] the model picks its argmax, that token is fed back as input
// (through the KV cache of encoder.decoder(), one step at O(length)), n
// times. One token per timer tick, so the reader watches the answer grow; at
// once under prefers-reduced-motion. Each token is a <span> of the box, right
// (green) or wrong (red) against t_i; the box's data-generated records the
// run for tests.
import { argmax, taskPrompt, targetOf } from '../models/tasks.js';

// The argmax picked: torch.argmax's (a NaN counts as the largest), the one encoder.generate uses.
export { argmax };

/**
 * box: { caption, tokens } elements; glyph(token) -> text; name: the model's name.
 * Returns { show(key, name, task, symbols, encoderOf), stop() }: show starts a new
 * run unless `key` is the current one; encoderOf() -> an encoder it disposes.
 */
export function createGreedy(box, glyph) {
  let run = { key: null };

  const caption = (r) => {
    const n = r.symbols.length;
    const k = r.generated.length;
    const answer = r.task === 'copy' ? 'the copy' : 'the reversal';
    if (k < n) return `Greedy: ${r.name} generates ${answer}, ${k} of ${n} tokens…`;
    const right = r.correct.filter(Boolean).length;
    const first = r.correct.indexOf(false);
    const exact = first < 0 ? 'exact match' : `not an exact match: its first error is symbol ${first + 1}, and it reads its own tokens from there`;
    return `Greedy: ${r.name} generates ${right} of ${n} symbols right, ${exact}.`;
  };

  const record = (r) => {
    box.caption.textContent = caption(r);
    box.tokens.dataset.generated = JSON.stringify({ key: r.key, tokens: r.generated, correct: r.correct.map(Number), done: r.generated.length === r.symbols.length });
  };

  function stop() {
    clearTimeout(run.timer);
    run.decoder?.dispose();
    run.encoder?.dispose();
    run = { key: null };
  }

  /** One token: the argmax appended and shown, then fed back unless the copy is complete. */
  function step(r) {
    const t = argmax(r.logits);
    const i = r.generated.length;
    r.generated.push(t);
    r.correct.push(t === r.target[i]);
    const span = document.createElement('span');
    span.textContent = glyph(t);
    span.className = t === r.target[i] ? 'right' : 'wrong';
    span.title = t === r.target[i] ? `target ${i + 1}: '${glyph(t)}'` : `target ${i + 1}: '${glyph(t)}', should be '${glyph(r.target[i])}'`;
    box.tokens.append(span);
    const done = r.generated.length === r.target.length;
    if (!done) r.logits = r.decoder.feed(t, { out: r.logits });
    record(r);
    if (done) {
      r.decoder.dispose();
      r.encoder.dispose();
      r.decoder = r.encoder = null;
    }
    return done;
  }

  function show(key, name, task, symbols, encoderOf) {
    if (run.key === key) return;
    stop();
    box.tokens.replaceChildren();
    const encoder = encoderOf();
    let decoder;
    try {
      // the prompt, then every generated token but the last: 2n + 1 positions
      decoder = encoder.decoder({ maxLength: 2 * symbols.length + 1 });
      run = { key, name, task, symbols, target: targetOf(task, symbols), generated: [], correct: [], encoder, decoder, logits: decoder.feed(taskPrompt(symbols)), timer: null };
    } catch (error) {
      decoder?.dispose();
      encoder.dispose();
      throw error;
    }
    const r = run;
    record(r);
    if (matchMedia('(prefers-reduced-motion: reduce)').matches) {
      while (!step(r));
      return;
    }
    // about two seconds for the longest copy, 40 ms a token for short ones
    const delay = Math.min(40, 2000 / symbols.length);
    const tick = () => {
      if (run !== r) return;
      if (!step(r)) r.timer = setTimeout(tick, delay);
    };
    r.timer = setTimeout(tick, delay);
  }

  return { show, stop };
}
