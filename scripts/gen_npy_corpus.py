# Generates fuzz/corpus/npy seeds (valid files via numpy, defects by hand).
import io, struct, sys, os
import numpy as np
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
def put(name, b):
    with open(os.path.join(out, name), 'wb') as f: f.write(b)
def npy(arr, ver):
    b = io.BytesIO(); np.lib.format.write_array(b, arr, version=ver); return b.getvalue()
def raw(header, data=b'', ver=(1,0), hlen=None, pad=True):
    h = header.encode('utf8' if ver[0] == 3 else 'latin1')
    pre = 10 if ver[0] == 1 else 12
    if pad:
        h = h + b' ' * ((64 - (pre + len(h) + 1) % 64) % 64) + b'\n'
    n = len(h) if hlen is None else hlen
    lf = struct.pack('<H', n) if ver[0] == 1 else struct.pack('<I', n)
    return b'\x93NUMPY' + bytes(ver) + lf + h + data
def hd(descr="'<f4'", fo='False', shape='(3,)'):
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (descr, fo, shape)
# valid
for v in [(1,0),(2,0),(3,0)]:
    for dt in ['<f2','<f4','<f8']:
        put('ok_v%d_%s_r1' % (v[0], dt[1:]), npy(np.arange(5, dtype=dt) * 0.5 - 1, v))
        put('ok_v%d_%s_r2' % (v[0], dt[1:]), npy(np.linspace(-2, 2, 6, dtype=dt).reshape(2,3), v))
put('ok_v1_f4_r3', npy(np.arange(8, dtype='<f4').reshape(2,2,2), (1,0)))
h16 = np.array([0x3C00,0x0001,0x03FF,0x0400,0x7BFF,0x7C00,0xFC00,0x7E00,0x7C01,0x8000,0x8001,0xFE01], dtype='<u2')
put('ok_v1_f2_specials', npy(h16.view('<f2'), (1,0)))
put('ok_v1_f4_specials', npy(np.array([np.inf,-np.inf,np.nan,-0.0,1e-45,3.4e38], dtype='<f4'), (1,0)))
put('ok_v1_f8_specials', npy(np.array([np.inf,np.nan,5e-324,-0.0,1.7e308], dtype='<f8'), (1,0)))
d3 = np.arange(3, dtype='<f4').tobytes()
put('ok_reordered_keys', raw("{'shape': (3,), 'fortran_order': False, 'descr': '<f4'}", d3))
put('ok_double_quotes', raw('{"descr": "<f4", "fortran_order": False, "shape": (3,)}', d3))
put('ok_whitespace', raw("  {  'descr'  :  '<f4' ,\t'fortran_order':False,'shape':( 3 , ) ,  }  ", d3))
put('ok_native_order', raw(hd("'=f4'"), d3))
put('ok_long_suffix', raw(hd(shape='(3L,)'), d3))
put('ok_unpadded', raw(hd(), d3, pad=False))
put('ok_shape_2d_trailing_comma', raw(hd(shape='(1, 3,)'), d3))
put('ok_v3_utf8', raw(hd(), d3, ver=(3,0)))
# defects
put('bad_magic', b'\x93NUMPX\x01\x00' + raw(hd(), d3)[8:])
put('bad_magic_text', b'hello world, not npy')
put('bad_short_magic', b'\x93NUM')
put('bad_version_4', raw(hd(), d3, ver=(4,0)))
put('bad_version_1_1', raw(hd(), d3, ver=(1,1)))
put('bad_trunc_lenfield', raw(hd(), d3)[:9])
put('bad_trunc_lenfield_v2', raw(hd(), d3, ver=(2,0))[:11])
put('bad_trunc_header', raw(hd(), d3)[:40])
put('bad_trunc_data', raw(hd(), d3)[:-1])
put('bad_trunc_data_all', raw(hd(), b''))
put('bad_trailing_data', raw(hd(), d3 + b'\0'))
put('bad_fortran', raw(hd(fo='True', shape='(1, 3)'), d3))
put('bad_fortran_nonbool', raw(hd(fo='0'), d3))
put('bad_bigendian', raw(hd("'>f4'"), d3))
put('bad_pipe_f4', raw(hd("'|f4'"), d3))
put('bad_i8', raw(hd("'<i8'"), d3 + d3))
put('bad_b1', raw(hd("'|b1'"), b'\1\0\1'))
put('bad_object', raw(hd("'|O'"), d3))
put('bad_f16', raw(hd("'<f16'"), d3))
put('bad_structured', raw(hd("[('a', '<f4')]"), d3))
put('bad_rank0', raw(hd(shape='()'), d3[:4]))
put('bad_rank4', raw(hd(shape='(1, 1, 1, 3)'), d3))
put('bad_rank9', raw(hd(shape='(1, 1, 1, 1, 1, 1, 1, 1, 3)'), d3))
put('bad_zero_rows', raw(hd(shape='(0, 3)')))
put('bad_zero_cols', raw(hd(shape='(3, 0)')))
put('bad_header_too_long', raw(hd(), d3, ver=(2,0), hlen=65535*16+1))
put('bad_header_over_file', raw(hd(), d3, hlen=60000))
put('bad_dim_overflow', raw(hd(shape='(99999999999999999999999,)'), d3))
put('bad_count_overflow', raw(hd(shape='(4294967296, 4294967296)'), d3))
put('bad_bytes_overflow', raw(hd("'<f8'", shape='(4611686018427387904,)'), d3))
put('bad_huge_shape', raw(hd(shape='(1000000000, 1000)'), d3))
put('bad_duplicate_key', raw("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (3,)}", d3))
put('bad_missing_shape', raw("{'descr': '<f4', 'fortran_order': False}", d3))
put('bad_unknown_key', raw("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}", d3))
put('bad_shape_not_tuple', raw(hd(shape='(3)'), d3))
put('bad_shape_list', raw(hd(shape='[3]'), d3))
put('bad_negative_dim', raw(hd(shape='(-3,)'), d3))
put('bad_garbage_after', raw(hd() + ' x', d3))
put('bad_unterminated_str', raw("{'descr: '<f4'}", d3))
put('bad_escape', raw("{'descr': '<f\\x34', 'fortran_order': False, 'shape': (3,)}", d3))
put('bad_nul_in_header', raw(hd() + '\0', d3))
put('bad_empty_header', raw('', d3, pad=False))
