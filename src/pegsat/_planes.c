/* The byte planes of sealed files' ``zstd-planes`` codec (sealed.py), compiled: a sorted array
 * of 64-bit words is stored as the differences between neighbours (the first: the first word,
 * all modulo 2^64), cut into eight byte planes (every lowest byte, then every second byte, ...)
 * that Zstandard then compresses. numpy does each step as a pass of its own (a subtraction, a
 * strided transpose, a running sum), about 100 M words a second for the transpose; one pass
 * here does both steps of a side in a few nanoseconds a word.
 *
 *   split(words, out)   out (8 x n bytes): plane k, byte i = byte k of words[i] - words[i - 1]
 *                        (words[-1] taken as 0). (``sealed._split_reference``.)
 *   join(planes, out)   the inverse: out[i] = out[i - 1] + the word whose byte k is plane k's
 *                        byte i (out: n words, planes: 8 x n bytes). (``sealed._join_reference``.)
 *
 * Both take C-contiguous buffers (words: 8-byte items, planes: bytes), keep nothing between
 * calls and loop without the GIL. Part of the file format both the search and the checker
 * read, not of either: neither the search core nor the checker's loops include it. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

static int get(PyObject *obj, Py_buffer *view, int writable, Py_ssize_t item, const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0) return -1;
    if (view->itemsize != item || view->len % item) {
        PyErr_Format(PyExc_ValueError, "%s: items of %zd bytes expected", what, item);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* words (n x 8 bytes) and planes (8 x n bytes), checked to agree; 0, or -1 with the error set */
static int pair(PyObject *args, Py_buffer *words, Py_buffer *planes, int to_planes) {
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "OO", &a, &b)) return -1;
    if (get(to_planes ? a : b, words, !to_planes, 8, "words") < 0) return -1;
    if (get(to_planes ? b : a, planes, to_planes, 1, "planes") < 0) {
        PyBuffer_Release(words);
        return -1;
    }
    if (planes->len != words->len) {
        PyErr_SetString(PyExc_ValueError, "planes: 8 bytes for each word expected");
        PyBuffer_Release(words);
        PyBuffer_Release(planes);
        return -1;
    }
    return 0;
}

static void cut(const uint64_t *x, uint8_t *out, Py_ssize_t n) {
    uint64_t last = 0;
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {  /* eight words at a time: one 8-byte store a plane */
        uint64_t gap[8], row[8] = {0};
        for (int j = 0; j < 8; j++) { gap[j] = x[i + j] - last; last = x[i + j]; }
        for (int k = 0; k < 8; k++)
            for (int j = 0; j < 8; j++) row[k] |= ((gap[j] >> (8 * k)) & 255) << (8 * j);
        for (int k = 0; k < 8; k++) memcpy(out + (Py_ssize_t)k * n + i, &row[k], 8);
    }
    for (; i < n; i++) {
        uint64_t gap = x[i] - last;
        last = x[i];
        for (int k = 0; k < 8; k++) out[(Py_ssize_t)k * n + i] = (uint8_t)(gap >> (8 * k));
    }
}

static void glue(const uint8_t *in, uint64_t *out, Py_ssize_t n) {
    uint64_t sum = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t gap = 0;
        for (int k = 0; k < 8; k++) gap |= (uint64_t)in[(Py_ssize_t)k * n + i] << (8 * k);
        sum += gap;
        out[i] = sum;
    }
}

/* split (to_planes) or join: the buffers checked, the loop run without the GIL */
static PyObject *run(PyObject *args, int to_planes) {
    Py_buffer w, p;
    if (pair(args, &w, &p, to_planes) < 0) return NULL;
    Py_ssize_t n = w.len / 8;
    Py_BEGIN_ALLOW_THREADS
    if (to_planes) cut(w.buf, p.buf, n);
    else glue(p.buf, w.buf, n);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&w);
    PyBuffer_Release(&p);
    Py_RETURN_NONE;
}

static PyObject *split(PyObject *self, PyObject *args) { (void)self; return run(args, 1); }
static PyObject *join(PyObject *self, PyObject *args) { (void)self; return run(args, 0); }

static PyMethodDef methods[] = {
    {"split", split, METH_VARARGS, "split(words, out): the byte planes of the words' differences"},
    {"join", join, METH_VARARGS, "join(planes, out): the words whose differences' byte planes these are"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_planes",
                                    "The byte planes of sealed files (_planes.c).", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__planes(void) { return PyModule_Create(&module); }
