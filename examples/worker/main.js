// main.js: the page starts a module worker and logs what it sends back
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
worker.onmessage = (event) => console.log('sinusoidal table:', event.data.length, 'values');
