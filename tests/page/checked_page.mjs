// checked_page.mjs - a fresh browser context and page for the page tests
// that collects the page's uncaught errors and console errors (a 4xx the
// page asked for on purpose excepted); page.done() closes the context and
// fails the test if any were collected.

import assert from 'node:assert/strict';

export async function openCheckedPage(browser, viewport) {
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        page.problems = [];
        page.on('pageerror', (e) => page.problems.push(e.message));
        page.on('console', (m) => {
                if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) page.problems.push(m.text());
        });
        page.done = async () => {
                await context.close();
                assert.deepEqual(page.problems, [], 'the page logged errors');
        };
        return page;
}
