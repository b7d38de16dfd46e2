// The live view's entry: one server-sent event stream, the run view or the study view by
// what it carries (`?run=CELL@SEED` opens one run of a study). The stream stays open once the
// run or study is over (the server keeps serving while this page is open); if the server then
// stops, the page keeps what it drew and does not reconnect.
import { html } from './draw.js';
import { RunView } from './run-view.js';
import { StudyView } from './study-view.js';

const root = document.getElementById('root');
const run = new URLSearchParams(location.search).get('run');
const source = new EventSource(run === null ? 'events' : `events?${new URLSearchParams({ run })}`);
let view = null;
let drawing = false;
let over = false;

// What the page received, for a reader (and the tests): views, and connections opened.
let views = 0;
let opens = 0;
source.onopen = () => {
  document.body.dataset.opens = String(++opens);
  document.getElementById('connection')?.remove();
};

source.onmessage = (message) => {
  const data = JSON.parse(message.data);
  document.body.dataset.views = String(++views);
  view ??= data.kind === 'study' ? new StudyView(root) : new RunView(root, run);
  view.merge(data);
  if ((data.kind === 'run' && data.done) || (data.kind === 'study' && data.finished)) over = true;
  if (!drawing) {
    drawing = true;
    requestAnimationFrame(() => {
      drawing = false;
      view.render();
      document.body.dataset.state = over ? 'over' : 'live';
    });
  }
};

source.onerror = () => {
  if (over) {
    source.close();
    return;
  }
  // The browser reconnects by itself; the server starts it again from a snapshot.
  const note = document.getElementById('connection') ?? html('p', '', { id: 'connection' }, root);
  note.textContent = source.readyState === EventSource.CLOSED ? 'disconnected: the run has ended or the server stopped' : 'reconnecting…';
};
