// The page as laid out: each chart's frame, data, texts and legends, and
// each table's and figure's caption with the run it belongs to, in CSS
// pixels of the viewport. Read by TestBrowserChartsReadable.
(() => {
  const box = (r) => ({L: r.left, T: r.top, R: r.right, B: r.bottom});
  const text = (el) => (el ? el.textContent : '');
  const runOf = (el) => { const o = el.closest('[data-run]'); return o ? o.dataset.run : ''; };
  const charts = [...document.querySelectorAll('svg.chart')].map((svg) => {
    const fig = svg.closest('figure');
    const frame = svg.querySelector('rect.frame');
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const points = [];
    for (const p of svg.querySelectorAll('g.data path')) {
      const n = p.getTotalLength(), m = p.getScreenCTM();
      for (let i = 0; i <= 50; i++) {
        const q = p.getPointAtLength(n * i / 50);
        const s = new DOMPoint(q.x, q.y).matrixTransform(m);
        points.push([s.x, s.y]);
      }
    }
    const texts = [...svg.querySelectorAll('text')].map((t) => ({
      Text: t.textContent, Px: parseFloat(getComputedStyle(t).fontSize) * scale, Box: box(t.getBoundingClientRect()),
      Turned: !!t.closest('g[transform*="rotate"]')}));
    return {
      Title: texts.length ? texts[0].Text : '',
      Caption: fig ? text(fig.querySelector(':scope > figcaption .caption') || fig.querySelector(':scope > figcaption')) : '',
      Run: runOf(svg),
      Framed: !!frame,
      Frame: box((frame || svg).getBoundingClientRect()),
      Box: box(svg.getBoundingClientRect()),
      Data: [...svg.querySelectorAll('g.data path, g.data image')].map((e) => box(e.getBoundingClientRect())),
      Points: points,
      Texts: texts,
      // a legend beside the chart, or one gonum drew inside it
      Legends: [...(fig ? fig.querySelectorAll('.legend') : []), ...svg.querySelectorAll('g.legend')].map((e) => box(e.getBoundingClientRect())),
    };
  });
  const captions = [...document.querySelectorAll('table, figure')].map((el) => {
    const cap = el.tagName === 'TABLE' ? el.querySelector(':scope > caption') : el.querySelector(':scope > figcaption .caption');
    return {Kind: el.tagName.toLowerCase() + (el.className ? '.' + el.className : ''), Caption: text(cap), Run: runOf(el)};
  });
  return {Charts: charts, Captions: captions, Sections: [...document.querySelectorAll('section[id]')].map((s) => s.id)};
})()
